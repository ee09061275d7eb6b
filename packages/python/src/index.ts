export { type OsSandboxReport, probeOsSandbox, type ToolCallEvent } from "@atrium/kit";
export { ExecutorBusyError } from "@atrium/spec";
export { authorizedImports, DEFAULT_AUTHORIZED_IMPORTS } from "./authorized-imports.js";
export { DEFAULT_PYTHON_LIMITS, type PythonLimits, resolvePythonLimits } from "./limits.js";
export { PYTHON_CAPABILITIES } from "./python-capabilities.js";
export { PythonExecutor, type PythonExecutorOptions } from "./python-executor.js";
export { pythonExecutorFactory } from "./python-executor-factory.js";
export { PythonIsolation, pythonCapabilities } from "./python-isolation.js";
export { drainPythonWorkers, setWarmPythonWorkers } from "./worker-pool.js";
