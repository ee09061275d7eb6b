import { QuickJsExecutor, quickJsExecutorFactory } from "@atrium/agent";
import { drainPythonWorkers, PythonExecutor, probeOsSandbox, pythonExecutorFactory } from "@atrium/python";
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
 * Every executor this app has: QuickJS, Python when the OS sandbox it runs in starts here, then
 * the micro-VM (`@atrium/microvm`: Python in a QEMU guest) when the host can boot it; the ones
 * this host cannot run are listed as unavailable with the reason (never swapped for a weaker
 * isolation behind the user's back).
 */
export async function executorChoices(
  options: { microvm?: MicroVmChoiceOptions } = {},
): Promise<ExecutorChoices> {
  const [microvm, sandbox] = await Promise.all([microVmChoice(options.microvm), probeOsSandbox()]);
  const unavailable: UnavailableExecutor[] = [];
  let offered = inProcessExecutorChoices();
  if (!sandbox.ok) {
    offered = offered.filter((choice) => choice.id !== "python");
    unavailable.push({ id: "python", label: "Pyodide (Python)", reason: sandbox.reason });
  }
  if ("factory" in microvm) offered.push(microvm);
  else unavailable.push(microvm);
  return { offered, unavailable };
}

/**
 * The executors this app runs on the host: QuickJS (`@atrium/agent`), the default, and Python in
 * WebAssembly (`@atrium/python`, Pyodide in an OS-sandboxed process, which needs bubblewrap: the
 * first question boots it, a few seconds).
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
