export { ExecutorBusyError } from "./executor-errors.js";
export { QuickJsExecutor, type QuickJsExecutorOptions } from "./quickjs/quickjs-executor.js";
export type { ToolCallEvent } from "./quickjs/tool-bridge.js";
export type { SandboxMemory } from "./quickjs/worker-protocol.js";
