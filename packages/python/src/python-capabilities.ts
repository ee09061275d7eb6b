import type { ExecutorCapabilities } from "@atrium/spec";

/**
 * CPython compiled to WebAssembly (Pyodide) in a worker thread: the guest has no network, no
 * host filesystem and no processes; everything outside goes through tools.
 */
export const PYTHON_CAPABILITIES: ExecutorCapabilities = Object.freeze({
  language: "python",
  persistentState: true,
  tools: true,
  isolation: "wasm",
  network: "none",
});
