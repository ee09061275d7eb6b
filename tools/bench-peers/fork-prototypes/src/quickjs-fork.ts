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

/** The end of the last 64 KiB page holding a non-zero byte. */
function usedEnd(memory: WasmMemory): number {
  const words = new BigUint64Array(memory.buffer);
  const perPage = PAGE / 8;
  for (let page = words.length / perPage - 1; page >= 0; page--) {
    for (let i = page * perPage; i < (page + 1) * perPage; i++) if (words[i] !== 0n) return (page + 1) * PAGE;
  }
  return 0;
}

/**
 * A second instance holding a copy of `parent`'s memory, and a context at the same pointers.
 * `whole`: copy every byte; otherwise only up to the last non-zero page of either memory (the
 * fresh memory is all zeros above it too), which skips most of the 16 MiB a new instance starts
 * with.
 */
async function fork(
  parentModule: QuickJSWASMModule,
  parent: QuickJSContext,
  whole = false,
): Promise<QuickJSContext> {
  const source = parentModule.getWasmMemory() as unknown as WasmMemory;
  const pages = source.buffer.byteLength / PAGE;
  const memory = new WebAssembly.Memory({ initial: pages, maximum: 32768 });
  const child = await newModule(memory);
  const end = whole ? source.buffer.byteLength : Math.max(usedEnd(source), usedEnd(memory));
  new Uint8Array(memory.buffer).set(new Uint8Array(source.buffer, 0, end));
  const { module, ffi, callbacks } = child as unknown as ModuleInternals;
  const { ctx, rt } = parent as unknown as ContextInternals;
  const runtime = new QuickJSRuntime({
    module,
    ffi,
    callbacks,
    rt: new Lifetime(rt.value, undefined, (pointer: number) => {
      ffi.QTS_FreeRuntime(pointer);
      callbacks.deleteRuntime(pointer);
    }),
  } as never);
  const context = runtime.newContext({ contextPointer: ctx.value } as never);
  // As QuickJSWASMModule.newContext does: the context owns its runtime, so disposing it frees both.
  (runtime as unknown as { context: QuickJSContext }).context = context;
  (context as unknown as { ownedLifetimes?: unknown[] }).ownedLifetimes?.push(runtime);
  return context;
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

for (const [name, whole] of [
  ["forkWholeMemoryMs", true],
  ["forkUsedPagesMs", false],
] as const) {
  const forkTimes: number[] = [];
  for (let i = 0; i < forks; i++) {
    const made = await timed(() => fork(parentModule, parent, whole));
    forkTimes.push(made.ms);
    made.value.dispose();
  }
  figures[name] = median(forkTimes);
}
figures.parentUsedMb = usedEnd(parentModule.getWasmMemory() as unknown as WasmMemory) / 2 ** 20;

// Where a fork's time goes: the new instance (given a memory of the parent's size) and the copy.
const instanceTimes: number[] = [];
const copyTimes: number[] = [];
const source = parentModule.getWasmMemory() as unknown as WasmMemory;
for (let i = 0; i < forks; i++) {
  const memory = new WebAssembly.Memory({ initial: source.buffer.byteLength / PAGE, maximum: 32768 });
  instanceTimes.push((await timed(() => newModule(memory))).ms);
  copyTimes.push((await timed(() => new Uint8Array(memory.buffer).set(new Uint8Array(source.buffer)))).ms);
}
figures.forkInstanceMs = median(instanceTimes);
figures.forkCopyMs = median(copyTimes);

const child = await fork(parentModule, parent);
const survived = {
  counter: evalNumber(child, "inc()"),
  listSum: evalNumber(child, "list.reduce((a, b) => a + b, 0)"),
  // The C side calls a host id the child's runtime does not know: quickjs-emscripten logs it and
  // the call returns nothing.
  hostBeforeRebind: evalNumber(child, "String(host())"),
};
// The host function's id lives in the copied memory; its JS function lives in the parent's
// runtime. The same ids, bound to a function of the child's, bring the bridge back.
const parentRefs = (parent.runtime as unknown as RuntimeInternals).hostRefs;
const childRefs = (child.runtime as unknown as RuntimeInternals).hostRefs;
childRefs.nextId = parentRefs.nextId;
childRefs.freelist = [...parentRefs.freelist];
for (const [groupId, group] of parentRefs.groups) {
  const rebound = new Map<number, unknown>();
  for (const id of group.keys())
    rebound.set(id, () => {
      hostCalls.push("child");
      return child.newNumber(8);
    });
  childRefs.groups.set(groupId, rebound);
}
const afterRebind = evalNumber(child, "host()");
const diverged = { parent: evalNumber(parent, "inc()"), child: evalNumber(child, "inc()") };
child.dispose();
parent.dispose();
console.log(
  JSON.stringify({
    figures,
    survived,
    afterRebind,
    hostCalls,
    diverged,
    disposed: !child.alive && !parent.alive,
  }),
);
