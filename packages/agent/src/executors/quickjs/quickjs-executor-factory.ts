import type { ExecutorFactory } from "@atrium/spec";
import { QUICKJS_CAPABILITIES } from "./quickjs-capabilities.js";
import { QuickJsExecutor, type QuickJsExecutorOptions } from "./quickjs-executor.js";

/** Makes QuickJS executors with these options, e.g. one per managed agent call. */
export function quickJsExecutorFactory(options: QuickJsExecutorOptions = {}): ExecutorFactory {
  return {
    capabilities: QUICKJS_CAPABILITIES,
    create: () => QuickJsExecutor.create(options),
  };
}
