import { QuickJsExecutor, quickJsExecutorFactory } from "@atrium/agent";
import { drainPythonWorkers, PythonExecutor, pythonExecutorFactory } from "@atrium/python";
import type { ExecutorCapabilities, ExecutorFactory } from "@atrium/spec";

/** One entry of the web UI's executor switch. */
export interface ExecutorChoice {
  id: string;
  label: string;
  factory: ExecutorFactory;
  /** Boots a sandbox of this kind ahead of the first question (the CLI does it while Chroma starts). */
  prewarm?: () => Promise<void>;
  /** Ends what the executors of this kind keep between questions (warm workers), at shutdown. */
  shutdown?: () => Promise<void>;
}

/** What the browser is told about an executor (the factory stays on the server). */
export interface ExecutorInfo extends Pick<ExecutorCapabilities, "language" | "isolation" | "network"> {
  id: string;
  label: string;
}

/**
 * The executors this app can offer: the ones its dependencies provide. QuickJS (`@atrium/agent`)
 * is the default; Python in WebAssembly (`@atrium/python`, Pyodide in a worker: the first question
 * boots it, a few seconds). The micro-VM executor (`@atrium/microvm`) joins this list, as its
 * package's `ExecutorFactory`, when that package offers one and becomes a dependency of the demo.
 */
export function executorChoices(): ExecutorChoice[] {
  return [
    {
      id: "quickjs",
      label: "QuickJS (JavaScript)",
      factory: quickJsExecutorFactory(),
      prewarm: () => QuickJsExecutor.prewarm(),
    },
    {
      id: "python",
      label: "Pyodide (Python)",
      factory: pythonExecutorFactory(),
      prewarm: () => PythonExecutor.prewarm(),
      shutdown: drainPythonWorkers,
    },
  ];
}

export function executorInfo(choice: ExecutorChoice): ExecutorInfo {
  const { language, isolation, network } = choice.factory.capabilities;
  return { id: choice.id, label: choice.label, language, isolation, network };
}
