/**
 * Can a QuickJS sandbox with state be forked? quickjs-emscripten 0.32's release-sync build
 * imports its linear memory (module "a", field "a") instead of defining it, and the runtime and
 * context are C structs inside that memory, found by two pointers. So: a second wasm instance of
 * the same compiled module, given a memory as large as the first's, the first's bytes copied over
 * it after it has started (instantiation writes the module's data segments and runs its
 * constructors), and the JS wrappers (QuickJSRuntime, QuickJSContext) rebuilt around the same
 * pointers. The wrappers keep JS-side state that the copy does not carry: the runtime's host
 * references (the functions made with newFunction) and its interrupt handler, which the fork
 * must set again. This prototype measures the fork against a fresh context, checks what survives
 * and that the two diverge, and disposes both (a leaked handle aborts the process). One JSON line.
 *
 *   pnpm --filter @atrium/fork-prototypes fork:quickjs [-- --forks N]
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import {
  Lifetime,
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  QuickJSRuntime,
  type QuickJSWASMModule,
  RELEASE_SYNC,
} from "quickjs-emscripten";
import { argument, type Figures, median, timed } from "./measure.js";

/** The members quickjs-emscripten marks @private that a fork has to reach. */
interface ModuleInternals {
  module: unknown;
  ffi: { QTS_FreeRuntime(rt: number): void };
  callbacks: { deleteRuntime(rt: number): void };
}
interface ContextInternals {
  ctx: { value: number };
  rt: { value: number };
  /** What the context's wrapper owns: its pointers, and the handles it keeps (the global object). */
  memory: { scope: { _disposables: { value: Set<{ alive: boolean; value: unknown }> } } };
  ffi: { QTS_FreeValuePointer(ctx: number, value: number): void };
}
/** The runtime's table of host functions: ids (in wasm memory) → JS functions (not in it). */
interface RuntimeInternals {
  hostRefs: { nextId: number; freelist: number[]; groups: Map<number, Map<number, unknown>> };
}

/** The few WebAssembly members used here (the DOM-free type libraries declare none). */
interface WasmMemory {
  buffer: ArrayBuffer;
}
const WebAssembly = (
  globalThis as unknown as {
    WebAssembly: {
      compile(bytes: Uint8Array): Promise<object>;
      Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
    };
  }
).WebAssembly;

const PAGE = 65536;
const fromQuickJs = createRequire(createRequire(import.meta.url).resolve("quickjs-emscripten"));
const compiled = await WebAssembly.compile(
  await readFile(fromQuickJs.resolve("@jitl/quickjs-wasmfile-release-sync/wasm")),
);

function newModule(memory?: WasmMemory): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(
    newVariant(
      RELEASE_SYNC,
      memory ? { wasmModule: compiled, wasmMemory: memory } : { wasmModule: compiled },
    ),
  );
}

/** A new instance with a memory as large as the parent's, not yet holding the parent's state. */
interface Spare {
  module: QuickJSWASMModule;
  memory: WasmMemory;
}

async function spareFor(parentModule: QuickJSWASMModule): Promise<Spare> {
  const pages = (parentModule.getWasmMemory() as unknown as WasmMemory).buffer.byteLength / PAGE;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: 32768 });
  return { module: await newModule(memory), memory };
}

/** The child's own function for a host function of the parent's (its id is in the copy). */
type Rebind = (child: QuickJSContext, id: number) => unknown;

/**
 * The parent's whole memory copied over the spare's (the spare's own start-up writes included),
 * and the JS wrappers rebuilt around the parent's runtime and context pointers.
 */
function adopt(
  spare: Spare,
  parentModule: QuickJSWASMModule,
  parent: QuickJSContext,
  rebind: Rebind,
): QuickJSContext {
  const source = parentModule.getWasmMemory() as unknown as WasmMemory;
  new Uint8Array(spare.memory.buffer).set(new Uint8Array(source.buffer));
  const { module, ffi, callbacks } = spare.module as unknown as ModuleInternals;
  const { ctx, rt, memory } = parent as unknown as ContextInternals;
  // Every JSValue the parent's wrapper holds is a reference counted in the copied memory that no
  // wrapper of the child's will release, and QuickJS aborts the process when a runtime is freed
  // with objects still referenced. The child releases the same pointers itself.
  const held = [...memory.scope._disposables.value]
    .filter((lifetime) => lifetime.alive && typeof lifetime.value === "number")
    .map((lifetime) => lifetime.value as number)
    .filter((pointer) => pointer !== ctx.value && pointer !== rt.value);
  const runtime = new QuickJSRuntime({
    module,
    ffi,
    callbacks,
    rt: new Lifetime(rt.value, undefined, (pointer: number) => {
      ffi.QTS_FreeRuntime(pointer);
      callbacks.deleteRuntime(pointer);
    }),
  } as never);
  // As QuickJSWASMModule.newContext does: the context owns its runtime, so disposing it frees both.
  const context = runtime.newContext({ contextPointer: ctx.value, ownedLifetimes: [runtime] } as never);
  (runtime as unknown as { context: QuickJSContext }).context = context;
  for (const pointer of held)
    (context as unknown as ContextInternals).ffi.QTS_FreeValuePointer(ctx.value, pointer);
  // Host functions: their ids are in the copy, their JS functions in the parent's runtime only.
  // Without the same ids in the child's table a call returns nothing, and freeing the runtime
  // (which frees each function object, and so its id) throws out of the wasm and ends the process.
  const parentRefs = (parent.runtime as unknown as RuntimeInternals).hostRefs;
  const childRefs = (runtime as unknown as RuntimeInternals).hostRefs;
  childRefs.nextId = parentRefs.nextId;
  childRefs.freelist = [...parentRefs.freelist];
  for (const [groupId, group] of parentRefs.groups)
    childRefs.groups.set(groupId, new Map([...group.keys()].map((id) => [id, rebind(context, id)])));
  return context;
}

async function fork(parentModule: QuickJSWASMModule, parent: QuickJSContext, rebind: Rebind) {
  return adopt(await spareFor(parentModule), parentModule, parent, rebind);
}

function evalNumber(context: QuickJSContext, code: string): number | string {
  const result = context.evalCode(code);
  if (result.error) {
    const error = context.dump(result.error) as { message?: string };
    result.error.dispose();
    return `error: ${error.message ?? String(error)}`;
  }
  const value = context.dump(result.value) as number;
  result.value.dispose();
  return value;
}

const forks = argument("forks", 50);
const figures: Figures = {};

const freshTimes: number[] = [];
for (let i = 0; i < forks; i++) {
  const made = await timed(async () => (await newModule()).newContext());
  freshTimes.push(made.ms);
  made.value.dispose();
}
figures.freshModuleAndContextMs = median(freshTimes);

const parentModule = await newModule();
const parent = parentModule.newContext();
const hostCalls: string[] = [];
const hostFn = parent.newFunction("host", () => {
  hostCalls.push("parent");
  return parent.newNumber(7);
});
parent.setProp(parent.global, "host", hostFn);
hostFn.dispose();
evalNumber(
  parent,
  "globalThis.counter = 41; globalThis.list = Array.from({ length: 10000 }, (_, i) => i); globalThis.inc = () => ++counter;",
);
figures.parentMemoryMb = (parentModule.getWasmMemory() as unknown as WasmMemory).buffer.byteLength / 2 ** 20;

/** The child's `host`: returns 8 where the parent's returns 7, so a call shows which one ran. */
const rebindToEight: Rebind = (child) => () => {
  hostCalls.push("child");
  return child.newNumber(8);
};

const forkTimes: number[] = [];
for (let i = 0; i < forks; i++) {
  const made = await timed(() => fork(parentModule, parent, rebindToEight));
  forkTimes.push(made.ms);
  made.value.dispose();
}
figures.forkMs = median(forkTimes);

// Where a fork's time goes: the new instance, then the copy, most of which is the kernel handing
// out 16 MiB of fresh pages. A spare made and touched ahead of time (as a pool could keep one)
// leaves only a copy into touched pages and the wrappers.
const spareTimes: number[] = [];
const fromSpareTimes: number[] = [];
for (let i = 0; i < forks; i++) {
  const spare = await timed(() => spareFor(parentModule));
  spareTimes.push(spare.ms);
  new Uint8Array(spare.value.memory.buffer).fill(1);
  const made = await timed(() => adopt(spare.value, parentModule, parent, rebindToEight));
  fromSpareTimes.push(made.ms);
  made.value.dispose();
}
figures.spareInstanceMs = median(spareTimes);
figures.forkFromTouchedSpareMs = median(fromSpareTimes);

const child = await fork(parentModule, parent, rebindToEight);
const survived = {
  counter: evalNumber(child, "inc()"),
  listSum: evalNumber(child, "list.reduce((a, b) => a + b, 0)"),
};
const hostInChild = evalNumber(child, "host()");
const diverged = { parent: evalNumber(parent, "inc()"), child: evalNumber(child, "inc()") };
child.dispose();
parent.dispose();
console.log(
  JSON.stringify({
    figures,
    survived,
    hostInChild,
    hostCalls,
    diverged,
    disposed: !child.alive && !parent.alive,
  }),
);
