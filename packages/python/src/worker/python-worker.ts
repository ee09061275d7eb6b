import { constants as fsConstants } from "node:fs";
import { createRequire } from "node:module";
import { constants as osConstants } from "node:os";
import { dirname } from "node:path";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import type { PyodideInterface } from "pyodide";
import { HARNESS_FILENAME, HARNESS_SOURCE } from "../harness/harness-source.js";
import {
  clearToolSlot,
  controlWords,
  type HarnessRunResult,
  type HostToWorker,
  INTERRUPT,
  type InitConfig,
  type WorkerToHost,
  waitForToolOutcome,
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
const { memory, toolPort, snapshot, pyodideFiles } = workerData as {
  memory: SharedArrayBuffer;
  toolPort: MessagePort;
  /** A memory snapshot of a fresh interpreter (see `boot`), when the process has one. */
  snapshot?: SharedArrayBuffer;
  /**
   * Where Pyodide's files are when they are not this module's `pyodide` dependency: in the OS
   * sandbox, which sees no node_modules, they are mounted at a path of their own.
   */
  pyodideFiles?: { moduleUrl: string; indexURL: string };
};

/**
 * Modules the harness and typical guest code import, loaded before the snapshot is taken so
 * every later worker starts with them in memory.
 */
const PRELOADED =
  "import ast, json, re, types, operator, collections, datetime, math, random, dataclasses, typing, enum, functools, itertools, statistics, string, decimal, fractions";

type PyCallable = (...args: unknown[]) => unknown;

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

/** Called by the harness's time.sleep: waits on the interrupt word; true when interrupted. */
function sleep(ms: number): boolean {
  const words = controlWords(memory);
  const deadline = current?.deadline ?? Number.POSITIVE_INFINITY;
  const wait = Math.max(0, Math.min(ms, deadline - Date.now()));
  Atomics.wait(words, INTERRUPT, 0, wait);
  // The word stays raised: CPython's own check consumes it, and the harness raises anyway.
  return Atomics.load(words, INTERRUPT) !== 0 || Date.now() >= deadline;
}

async function boot(): Promise<void> {
  installWasmMemoryCap();
  blockFetchBeforeLoad();
  if (process.permission) allowPyodideUnderPermissionModel();
  const { loadPyodide } = (await import(pyodideFiles?.moduleUrl ?? "pyodide")) as typeof import("pyodide");
  const indexURL =
    pyodideFiles?.indexURL ?? `${dirname(createRequire(import.meta.url).resolve("pyodide/package.json"))}/`;
  const options = {
    indexURL,
    jsglobals: Object.create(null),
    // The harness replaces sys.stdout; anything Pyodide itself prints is not the guest's output.
    stdout: () => undefined,
    stderr: () => undefined,
    env: { HOME: "/home/pyodide" },
  };
  // Starting CPython and importing its first modules is most of a boot (seconds in wasm). The
  // process's first worker snapshots its fresh interpreter, before any harness or guest code
  // exists, and every later worker restores that snapshot instead (several times faster).
  // Pyodide marks the snapshot options private, so a restore that fails falls back to a boot.
  if (snapshot) {
    try {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: new Uint8Array(snapshot) });
    } catch {
      pyodide = await loadPyodide(options);
    }
  } else {
    pyodide = await loadPyodide({ ...options, _makeSnapshot: true });
    pyodide.runPython(PRELOADED);
    const bytes = pyodide.makeMemorySnapshot();
    const shared = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(shared).set(bytes);
    send({ type: "snapshot", memory: shared });
  }
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

/**
 * Pyodide reads `process.binding("constants")` while it loads, which Node's permission model
 * refuses; the file-system constants it wants are public anyway. (The lockdown replaces
 * `process.binding` altogether once Pyodide has loaded.)
 */
function allowPyodideUnderPermissionModel(): void {
  const proc = process as unknown as { binding(name: string): unknown };
  const binding = proc.binding.bind(process);
  proc.binding = (name: string) =>
    name === "constants" ? { fs: fsConstants, os: osConstants } : binding(name);
}

function init(config: InitConfig): void {
  if (harness) throw new WorkerRequestError("this worker already serves an executor");
  setWasmMemoryCap(config.limits.memoryLimitBytes);
  const entries = makeHarness({ callTool, sleep }, JSON.stringify(config)) as {
    get(name: string): PyCallable;
  };
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
      init(message.config);
      return undefined;
    case "run": {
      current = { runId: message.runId, deadline: message.deadline, calls: 0 };
      try {
        return JSON.parse(live().run_step(message.runId, message.code)) as HarnessRunResult;
      } catch (error) {
        // The interrupt reached Python between the harness's own lines: the step was stopped.
        if (
          error instanceof Error &&
          error.name === "PythonError" &&
          error.message.includes("KeyboardInterrupt")
        ) {
          return { outputJson: null, isFinalAnswer: false, logs: "", interrupted: true };
        }
        throw error;
      } finally {
        current = undefined;
        // A stop that came as the step ended must not interrupt the next request.
        Atomics.store(controlWords(memory), INTERRUPT, 0);
      }
    }
    case "set-tools":
      live().set_tools(JSON.stringify(message.tools));
      return undefined;
    case "set-variables":
      live().set_variables(JSON.stringify(message.entries));
      return undefined;
    case "reset":
      live().reset();
      return undefined;
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
  (error: unknown) =>
    send({ type: "boot-failed", message: error instanceof Error ? error.message : String(error) }),
);
