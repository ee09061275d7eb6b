export type { ToolCallEvent } from "@atrium/kit";
export {
  QUICKJS_CAPABILITIES,
  QUICKJS_ISOLATIONS,
  type QuickJsIsolation,
  quickJsCapabilities,
} from "./quickjs/quickjs-capabilities.js";
export { QuickJsExecutor, type QuickJsExecutorOptions } from "./quickjs/quickjs-executor.js";
export { quickJsExecutorFactory } from "./quickjs/quickjs-executor-factory.js";
export { drainSandboxProcesses } from "./quickjs/sandbox-pools.js";
export type { SandboxMemory } from "./quickjs/worker-protocol.js";
