/** Where QuickJS's wasm file is inside the OS sandbox (mounted read-only from the host's package). */
export const SANDBOX_QUICKJS_WASM = "/atrium/quickjs/emscripten-module.wasm";

/** The largest JSON frame either side of the sandbox's channel accepts; the executor's limits bound far below it. No bytes frames cross. */
export const MAX_QUICKJS_FRAME_BYTES = 64 * 1024 * 1024;
