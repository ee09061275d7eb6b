import type { ExecutorFactory } from "@atrium/spec";
import { PythonExecutor, type PythonExecutorOptions } from "./python-executor.js";
import { PythonIsolation, pythonCapabilities } from "./python-isolation.js";

/** Makes Python executors with these options, e.g. one per managed agent or per question. */
export function pythonExecutorFactory(options: PythonExecutorOptions = {}): ExecutorFactory {
  return {
    capabilities: pythonCapabilities(options.isolation ?? PythonIsolation.default),
    create: () => PythonExecutor.create(options),
  };
}
