import { quickJsExecutorFactory } from "@atrium/agent";
import type { ExecutorCapabilities, ExecutorFactory } from "@atrium/spec";

/** One entry of the web UI's executor switch. */
export interface ExecutorChoice {
  id: string;
  label: string;
  factory: ExecutorFactory;
}

/** What the browser is told about an executor (the factory stays on the server). */
export interface ExecutorInfo extends Pick<ExecutorCapabilities, "language" | "isolation" | "network"> {
  id: string;
  label: string;
}

/**
 * The executors this app can offer: the ones its dependencies provide. Today that is QuickJS
 * (`@atrium/agent`); the micro-VM (`@atrium/microvm`) and Python-in-Wasm (`@atrium/python`)
 * executors join this list, each as its package's `ExecutorFactory`, when those packages land
 * and become dependencies of the demo. The first entry is the default.
 */
export function executorChoices(): ExecutorChoice[] {
  return [{ id: "quickjs", label: "QuickJS", factory: quickJsExecutorFactory() }];
}

export function executorInfo(choice: ExecutorChoice): ExecutorInfo {
  const { language, isolation, network } = choice.factory.capabilities;
  return { id: choice.id, label: choice.label, language, isolation, network };
}
