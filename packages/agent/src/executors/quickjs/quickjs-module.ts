import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSWASMModule,
  RELEASE_SYNC,
} from "quickjs-emscripten";

/**
 * Every sandbox gets its own WebAssembly instance (its own linear memory), so a sandbox that
 * crashes its instance — Node's native stack can overflow inside wasm frames before QuickJS's
 * own stack check fires, for example on deeply nested JSON — takes nothing else down with it.
 * The wasm bytes are compiled once per process, which keeps a new instance at about a
 * millisecond.
 */
/** Node's WebAssembly global (the DOM-free type libraries declare only its types). */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } })
  .WebAssembly;
type WasmModule = NonNullable<Parameters<typeof newVariant>[1]["wasmModule"]> & object;

let variant: Promise<typeof RELEASE_SYNC> | undefined;
/** Set inside the OS sandbox, which sees no node_modules: the wasm file is mounted on its own. */
let wasmFile: string | undefined;

/** Loads QuickJS's wasm from this file instead of from the quickjs-emscripten package. */
export function useQuickJsWasmFile(path: string): void {
  wasmFile = path;
}

function compiledVariant(): Promise<typeof RELEASE_SYNC> {
  variant ??= (async () => {
    const bytes = await readFile(wasmFile ?? packagedWasmFile());
    return newVariant(RELEASE_SYNC, { wasmModule: await wasm.compile(bytes) });
  })().catch((error: unknown) => {
    variant = undefined;
    throw error;
  });
  return variant;
}

/** Where quickjs-emscripten's release build keeps its wasm. */
export function packagedWasmFile(): string {
  const fromQuickJs = createRequire(createRequire(import.meta.url).resolve("quickjs-emscripten"));
  return fromQuickJs.resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
}

/** A fresh QuickJS wasm instance (bellard/quickjs, release build, synchronous). */
export async function newQuickJsModule(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(await compiledVariant());
}
