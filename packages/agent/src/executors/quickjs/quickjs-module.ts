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

function compiledVariant(): Promise<typeof RELEASE_SYNC> {
  variant ??= (async () => {
    const fromQuickJs = createRequire(createRequire(import.meta.url).resolve("quickjs-emscripten"));
    const bytes = await readFile(fromQuickJs.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"));
    return newVariant(RELEASE_SYNC, { wasmModule: await wasm.compile(bytes) });
  })().catch((error: unknown) => {
    variant = undefined;
    throw error;
  });
  return variant;
}

/** A fresh QuickJS wasm instance (bellard/quickjs, release build, synchronous). */
export async function newQuickJsModule(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModuleFromVariant(await compiledVariant());
}
