import type { ChildProcess } from "node:child_process";

/**
 * Children to stop when this process ends. `exit` handlers must be synchronous, so the children
 * get SIGTERM and shut down on their own; for SIGINT/SIGTERM/SIGHUP the signal is re-raised after
 * cleanup when nobody else handles it, so the host still dies the way it would have.
 */
const children = new Set<ChildProcess>();
const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
let installed = false;

function terminateAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  }
  children.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  terminateAll();
  if (process.listenerCount(signal) === 1) {
    uninstall();
    process.kill(process.pid, signal);
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", terminateAll);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off("exit", terminateAll);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

export function stopOnExit(child: ChildProcess): void {
  children.add(child);
  install();
  child.once("exit", () => {
    children.delete(child);
    if (children.size === 0) uninstall();
  });
}
