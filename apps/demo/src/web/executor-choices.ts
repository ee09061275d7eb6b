import { QuickJsExecutor, quickJsExecutorFactory } from "@atrium/agent";
import { drainPythonWorkers, PythonExecutor, pythonExecutorFactory } from "@atrium/python";
import type { ExecutorCapabilities } from "@atrium/spec";
import type { ExecutorChoice, UnavailableExecutor } from "./executor-choice.js";
import { type MicroVmChoiceOptions, microVmChoice } from "./microvm-choice.js";

/** What the browser is told about an executor (the factory stays on the server). */
export interface ExecutorInfo extends Pick<ExecutorCapabilities, "language" | "isolation" | "network"> {
  id: string;
  label: string;
}

export interface ExecutorChoices {
  /** The first is the default. */
  offered: ExecutorChoice[];
  unavailable: UnavailableExecutor[];
}

/**
 * Every executor this app has: the in-process ones, then the micro-VM (`@atrium/microvm`: Python
 * in a QEMU guest) when the host can boot it, else listed as unavailable with the reason.
 */
export async function executorChoices(
  options: { microvm?: MicroVmChoiceOptions } = {},
): Promise<ExecutorChoices> {
  const microvm = await microVmChoice(options.microvm);
  const offered = inProcessExecutorChoices();
  if ("factory" in microvm) return { offered: [...offered, microvm], unavailable: [] };
  return { offered, unavailable: [microvm] };
}

/**
 * The executors that need nothing from the host: QuickJS (`@atrium/agent`), the default, and
 * Python in WebAssembly (`@atrium/python`, Pyodide in a worker: the first question boots it, a
 * few seconds).
 */
export function inProcessExecutorChoices(): ExecutorChoice[] {
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
