import type { ExecutorFactory } from "@atrium/spec";
import { quickJsCapabilities } from "./quickjs-capabilities.js";
import { QuickJsExecutor, type QuickJsExecutorOptions } from "./quickjs-executor.js";

/** Makes QuickJS executors with these options, e.g. one per managed agent call. */
export function quickJsExecutorFactory(options: QuickJsExecutorOptions = {}): ExecutorFactory {
  return {
    capabilities: quickJsCapabilities(options.isolation ?? "worker"),
    create: () => QuickJsExecutor.create(options),
  };
}
