import type { ExecutorFactory } from "@atrium/spec";
import { PYTHON_CAPABILITIES } from "./python-capabilities.js";
import { PythonExecutor, type PythonExecutorOptions } from "./python-executor.js";

/** Makes Python executors with these options, e.g. one per managed agent or per question. */
export function pythonExecutorFactory(options: PythonExecutorOptions = {}): ExecutorFactory {
  return {
    capabilities: PYTHON_CAPABILITIES,
    create: () => PythonExecutor.create(options),
  };
}
