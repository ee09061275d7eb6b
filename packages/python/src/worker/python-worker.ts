import { createRequire } from "node:module";
import { dirname } from "node:path";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { loadPyodide, type PyodideInterface } from "pyodide";
import { HARNESS_FILENAME, HARNESS_SOURCE } from "../harness/harness-source.js";
import {
  clearToolSlot,
  controlWords,
  type HarnessRunResult,
  type HostToWorker,
  type InitConfig,
  waitForToolOutcome,
  type WorkerToHost,
} from "../worker-protocol.js";
import { blockFetchBeforeLoad, lockDownWorkerThread } from "./js-lockdown.js";
import { installWasmMemoryCap, setWasmMemoryCap } from "./wasm-memory-cap.js";

/**
 * Entry point of a Python sandbox worker: boots Pyodide from the npm package (offline: fetch is
 * blocked before it loads), locks the thread down, then serves one executor's requests in order.
 * A worker serves a single executor for its whole life: its interpreter's modules may have been
 * changed by guest code, so it is never handed to another.
 */
if (!parentPort) throw new Error("python-worker must run in a worker thread");
const port = parentPort;
const { memory, toolPort } = workerData as { memory: SharedArrayBuffer; toolPort: MessagePort };

interface PyCallable {
  (...args: unknown[]): unknown;
}

interface Harness {
  run_step(runId: number, code: string): string;
  set_tools(json: string): void;
  set_variables(json: string): void;
  reset(): void;
}

let pyodide: PyodideInterface;
let makeHarness: PyCallable;
let harness: Harness | undefined;
let current: { runId: number; deadline: number; calls: number } | undefined;

function send(message: WorkerToHost): void {
  port.postMessage(message);
}

/** Called by Python (through the harness's `host.callTool`) while a step runs. */
function callTool(name: string, json: string): string {
  const run = current;
  if (!run) throw new Error("a tool was called outside a step");
  const callId = ++run.calls;
  clearToolSlot(memory, toolPort);
  send({ type: "tool-call", runId: run.runId, callId, name, json });
  return waitForToolOutcome(memory, toolPort, callId, run.deadline);
}

async function boot(): Promise<void> {
  installWasmMemoryCap();
  blockFetchBeforeLoad();
  const indexURL = `${dirname(createRequire(import.meta.url).resolve("pyodide/package.json"))}/`;
  pyodide = await loadPyodide({
    indexURL,
    jsglobals: Object.create(null),
    // The harness replaces sys.stdout; anything Pyodide itself prints is not the guest's output.
    stdout: () => undefined,
    stderr: () => undefined,
    env: { HOME: "/home/pyodide" },
  });
  pyodide.setInterruptBuffer(controlWords(memory));
  const namespace = (pyodide.globals.get("dict") as PyCallable)() as { get(name: string): unknown };
  pyodide.runPython(HARNESS_SOURCE, { globals: namespace as never, filename: HARNESS_FILENAME });
  makeHarness = namespace.get("make_harness") as PyCallable;
  // The JS bridge modules go before any guest code exists: no finder can produce them again,
  // and the harness refuses their import besides.
  pyodide.runPython("import sys\nfor _name in ('js', 'pyodide_js'):\n    sys.modules.pop(_name, None)");
  pyodide.unregisterJsModule("js");
  pyodide.unregisterJsModule("pyodide_js");
  lockDownWorkerThread();
}

function init(config: InitConfig): void {
  if (harness) throw new WorkerRequestError("this worker already serves an executor");
  setWasmMemoryCap(config.limits.memoryLimitBytes);
  const entries = makeHarness({ callTool }, JSON.stringify(config)) as { get(name: string): PyCallable };
  harness = {
    run_step: entries.get("run_step") as Harness["run_step"],
    set_tools: entries.get("set_tools") as Harness["set_tools"],
    set_variables: entries.get("set_variables") as Harness["set_variables"],
    reset: entries.get("reset") as Harness["reset"],
  };
}

/** A request the worker refuses; the interpreter itself is fine. */
class WorkerRequestError extends Error {
  override name = "WorkerRequestError";
}

function live(): Harness {
  if (!harness) throw new WorkerRequestError("the python worker has no executor (init first)");
  return harness;
}

function handle(message: HostToWorker): ReplyValue {
  switch (message.type) {
    case "init":
      return init(message.config);
    case "run": {
      current = { runId: message.runId, deadline: message.deadline, calls: 0 };
      try {
        return JSON.parse(live().run_step(message.runId, message.code)) as HarnessRunResult;
      } finally {
        current = undefined;
      }
    }
    case "set-tools":
      return live().set_tools(JSON.stringify(message.tools));
    case "set-variables":
      return live().set_variables(JSON.stringify(message.entries));
    case "reset":
      return live().reset();
  }
}

type ReplyValue = HarnessRunResult | undefined;

port.on("message", (message: HostToWorker) => {
  try {
    const value = handle(message);
    send({ type: "reply", id: message.id, ok: true, ...(value === undefined ? {} : { value }) });
  } catch (error) {
    const { name, message: text } = error instanceof Error ? error : new Error(String(error));
    // Anything but a plain error from the harness means the interpreter may be broken (a wasm
    // trap, a fatal Pyodide error): the host replaces this worker.
    const fatal = name !== "WorkerRequestError" && name !== "PythonError";
    send({ type: "reply", id: message.id, ok: false, error: { name, message: text }, fatal });
  }
});

boot().then(
  () => send({ type: "ready" }),
  (error: unknown) => send({ type: "boot-failed", message: error instanceof Error ? error.message : String(error) }),
);
