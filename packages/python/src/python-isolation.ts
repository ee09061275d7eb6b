import type { ExecutorCapabilities } from "@atrium/spec";

/**
 * What separates Python guest code from the host.
 * - "process" (the default): the interpreter runs in its own process inside an OS sandbox
 *   (bubblewrap: no network, no host files but its runtime, its own PID namespace, seccomp,
 *   resource limits, an unprivileged uid, Node's permission model), with the Python guards as a
 *   second layer. Needs Linux with bubblewrap; elsewhere `create()` refuses, saying what to
 *   install.
 * - "wasm": the interpreter runs in a worker thread of the host process, and the language-level
 *   guards are the only wall: for hosts where the OS sandbox cannot start, chosen by name.
 */
export type PythonIsolation = "process" | "wasm";

export const PythonIsolation = {
  default: "process" as PythonIsolation,
  all: ["process", "wasm"] as readonly PythonIsolation[],
};

/** The capabilities a Python executor of that isolation declares. */
export function pythonCapabilities(isolation: PythonIsolation): ExecutorCapabilities {
  return isolation === "process" ? PYTHON_PROCESS_CAPABILITIES : PYTHON_WASM_CAPABILITIES;
}

const PYTHON_PROCESS_CAPABILITIES: ExecutorCapabilities = Object.freeze({
  language: "python",
  persistentState: true,
  tools: true,
  isolation: "process",
  network: "none",
  // Steps replay from a record (tool calls answered from it, the random seed and clock reused).
  replay: true,
});

const PYTHON_WASM_CAPABILITIES: ExecutorCapabilities = Object.freeze({
  language: "python",
  persistentState: true,
  tools: true,
  isolation: "wasm",
  network: "none",
  // Steps replay from a record (tool calls answered from it, the random seed and clock reused).
  replay: true,
});
