import type { ExecutorCapabilities } from "@atrium/spec";
import { pythonCapabilities } from "./python-isolation.js";

/**
 * The default Python executor's capabilities: CPython in WebAssembly inside an OS-sandboxed
 * process (isolation "process"); the guest has no network, no host filesystem and no
 * processes; everything outside goes through tools. `pythonCapabilities("wasm")` describes the
 * in-thread mode.
 */
export const PYTHON_CAPABILITIES: ExecutorCapabilities = pythonCapabilities("process");
