import type { ExecutorCapabilities } from "@atrium/spec";

/**
 * What separates QuickJS guest code from the host.
 * - "worker" (the default): its own wasm instance in a worker thread of this process. The guest
 *   has no network or filesystem API at all; the boundary is the interpreter and WebAssembly.
 * - "process": the same worker inside an OS-sandboxed process (`@atrium/kit`'s launcher, as
 *   for Python), so that a flaw in QuickJS, WebAssembly or V8 still meets the operating system.
 */
export type QuickJsIsolation = "worker" | "process";

export const QUICKJS_ISOLATIONS: readonly QuickJsIsolation[] = ["worker", "process"];

/** QuickJS in a worker thread (the default isolation). */
export const QUICKJS_CAPABILITIES: ExecutorCapabilities = Object.freeze({
  language: "javascript",
  persistentState: true,
  tools: true,
  isolation: "worker",
  network: "none",
  // Steps replay from a record (tool calls answered from it, Math.random and the clock reused).
  replay: true,
});

const QUICKJS_PROCESS_CAPABILITIES: ExecutorCapabilities = Object.freeze({
  ...QUICKJS_CAPABILITIES,
  isolation: "process",
});

export function quickJsCapabilities(isolation: QuickJsIsolation): ExecutorCapabilities {
  return isolation === "process" ? QUICKJS_PROCESS_CAPABILITIES : QUICKJS_CAPABILITIES;
}
