import type { ExecutorCapabilities } from "@atrium/spec";

/**
 * QuickJS runs in its own wasm instance inside a worker thread; the sandbox has no network or
 * filesystem API at all, so everything outside goes through tools.
 */
export const QUICKJS_CAPABILITIES: ExecutorCapabilities = Object.freeze({
  language: "javascript",
  persistentState: true,
  tools: true,
  isolation: "worker",
  network: "none",
});
