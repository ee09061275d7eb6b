import type { ChildProcess } from "node:child_process";
import { onExit } from "signal-exit";

/**
 * Children to stop when this process ends: normally, by an uncaught error or by a signal.
 * signal-exit runs the hook and, for a signal, re-raises it so the host still dies the way it
 * would have — and it cooperates with every other signal-exit user in the process
 * (@atrium/mcp's stdio servers, many npm tools), where hand-written signal handlers each wait
 * for the others to re-raise and the host ends up ignoring SIGTERM. Exit hooks must be
 * synchronous, so the children get SIGTERM and shut down on their own.
 */
const children = new Set<ChildProcess>();
let removeHook: (() => void) | undefined;

function terminateAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  }
  children.clear();
}

export function stopOnExit(child: ChildProcess): void {
  children.add(child);
  removeHook ??= onExit(terminateAll);
  child.once("exit", () => {
    children.delete(child);
    if (children.size === 0) {
      removeHook?.();
      removeHook = undefined;
    }
  });
}
