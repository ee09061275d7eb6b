import { constants as fsConstants } from "node:fs";
import { createRequire } from "node:module";
import { constants as osConstants } from "node:os";
import { dirname } from "node:path";
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import type { PyodideInterface } from "pyodide";
import { HARNESS_FILENAME } from "../harness/harness-file.js";
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
import { FORGET_JS_MODULES } from "./forget-js-modules.js";
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
const {
  memory,
  toolPort,
  snapshot,
  pyodideFiles,
  harness: harnessSource,
} = workerData as {
  memory: SharedArrayBuffer;
  toolPort: MessagePort;
  /** The Python harness (harness/harness.py), read by the host from the package. */
  harness: string;
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
  "import ast, json, re, types, operator, collections, datetime, math, random, dataclasses, typing, enum, functools, itertools, statistics, string, decimal, fractions, annotationlib, inspect, keyword, posixpath, signal, tokenize, zipimport";

/**
 * The file the harness opens to reach the host (its `_HOST_DEVICE`): a character device whose
 * write and read run here, synchronously. Tools and `time.sleep` go through it, so the Python
 * side never holds a JavaScript object (one would lead to `Function`, i.e. JavaScript here).
 */
const HOST_DEVICE = "/dev/atrium-host";

/**
 * The part of the C stack CPython may use before it raises RecursionError, and its Python
 * recursion limit (CPython's default, set explicitly because guest code may not change it).
 * wasm frames live on this thread's V8 stack (4 MB for a worker thread), which overflows long
 * before CPython's own check of Emscripten's 10 MB shadow stack would fire, and V8's RangeError
 * is fatal to Pyodide. Measured in a worker with 128 KiB: nested lists give RecursionError at
 * 9,000 levels for ==, 6,000 for repr and 3,000 for json.dumps, where V8 overflows past 12,000
 * (test/python-recursion.test.ts).
 */
const C_STACK_BYTES = 128 * 1024;
const RECURSION_LIMIT = 1000;

type PyCallable = (...args: unknown[]) => unknown;

/** The parts of Emscripten's FS and module this file uses (Pyodide types them loosely). */
interface DeviceOps {
  open(stream: unknown): void;
  close(stream: unknown): void;
  read(stream: unknown, buffer: Uint8Array, offset: number, length: number, position: number): number;
  write(stream: unknown, buffer: Uint8Array, offset: number, length: number, position: number): number;
}
interface EmscriptenFS {
  makedev(major: number, minor: number): number;
  registerDevice(dev: number, ops: DeviceOps): void;
  mkdev(path: string, mode: number, dev: number): unknown;
}
interface EmscriptenModule {
  _emscripten_stack_get_base(): number;
  __PyThreadState_GetCurrent(): number;
  _PyUnstable_ThreadState_SetStackProtection(tstate: number, start: number, size: number): number;
}

interface Harness {
  /** `tape`: the JSON of a recorded step's `HarnessTapeRequest`, absent for an ordinary step. */
  run_step(runId: number, code: string, tape?: string): string;
  set_tools(json: string): void;
  set_variables(json: string): void;
  reset(): void;
}

let pyodide: PyodideInterface;
let makeHarness: PyCallable;
let harness: Harness | undefined;
let current: { runId: number; deadline: number; calls: number } | undefined;
let maxToolCalls = 0;

function send(message: WorkerToHost): void {
  port.postMessage(message);
}

/** A tool call from the harness: `runId` is the step it believes is running. */
function callTool(runId: number, name: string, json: string): string {
  const run = current;
  // A finalizer of an earlier step, or a call made as the step ended, is not this step's.
  if (!run || run.runId !== runId)
    return refusal(`${name}() was called outside the code of a step; call tools from the step's own code`);
  const callId = ++run.calls;
  if (callId > maxToolCalls) {
    return refusal(`more than ${maxToolCalls} tool calls in one step; call tools fewer times per step`);
  }
  clearToolSlot(memory, toolPort);
  send({ type: "tool-call", runId: run.runId, callId, name, json });
  return waitForToolOutcome(memory, toolPort, callId);
}

function refusal(message: string): string {
  return JSON.stringify({ ok: false, refused: true, message });
}

/** The harness's time.sleep: waits on the interrupt word; true when interrupted. */
function sleep(ms: number): boolean {
  const words = controlWords(memory);
  const deadline = current?.deadline ?? Number.POSITIVE_INFINITY;
  const wait = Math.max(0, Math.min(Number.isFinite(ms) ? ms : 0, deadline - Date.now()));
  Atomics.wait(words, INTERRUPT, 0, wait);
  // The word stays raised: CPython's own check consumes it, and the harness raises anyway.
  return Atomics.load(words, INTERRUPT) !== 0 || Date.now() >= deadline;
}

/** Answers one request written to HOST_DEVICE: "S<ms>" sleeps, "T<run>\0<tool>\0<json>" calls. */
function serveHostRequest(request: string): string {
  if (request.startsWith("S")) return sleep(Number(request.slice(1))) ? "1" : "0";
  const first = request.indexOf("\0");
  const second = request.indexOf("\0", first + 1);
  if (request.startsWith("T") && first > 0 && second > first) {
    return callTool(
      Number(request.slice(1, first)),
      request.slice(first + 1, second),
      request.slice(second + 1),
    );
  }
  return refusal("the sandbox's host channel got a request it does not know");
}

/**
 * The host device: each write is one whole request (the harness writes it in one call), and
 * reads return its answer until they return 0 bytes. A JavaScript exception must not cross into
 * wasm (Pyodide treats it as fatal), so a failure becomes a refusal the harness raises.
 */
function installHostDevice(fs: EmscriptenFS): void {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let answer = new Uint8Array(0);
  let read = 0;
  const device = fs.makedev(64, 0);
  fs.registerDevice(device, {
    open() {},
    close() {},
    write(_stream, buffer, offset, length) {
      let text: string;
      try {
        text = serveHostRequest(decoder.decode(buffer.subarray(offset, offset + length)));
      } catch (error) {
        text = refusal(`the host channel failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      answer = encoder.encode(text);
      read = 0;
      return length;
    },
    read(_stream, buffer, offset, length) {
      const count = Math.min(length, answer.length - read);
      buffer.set(answer.subarray(read, read + count), offset);
      read += count;
      return count;
    },
  });
  // 0o600: only this process's Python opens it, and the harness refuses guest opens anyway.
  fs.mkdev(HOST_DEVICE, 0o600, device);
}

/**
 * Lets CPython raise RecursionError after C_STACK_BYTES of C stack (its default is the whole
 * 10 MB shadow stack, more than the V8 stack beneath it can hold).
 */
function protectStack(module: EmscriptenModule): void {
  const base = module._emscripten_stack_get_base();
  const tstate = module.__PyThreadState_GetCurrent();
  if (module._PyUnstable_ThreadState_SetStackProtection(tstate, base - C_STACK_BYTES, C_STACK_BYTES) !== 0) {
    throw new Error("could not set CPython's C stack protection");
  }
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
  installHostDevice(pyodide.FS as unknown as EmscriptenFS);
  protectStack((pyodide as unknown as { _module: EmscriptenModule })._module);
  const namespace = (pyodide.globals.get("dict") as PyCallable)() as { get(name: string): unknown };
  pyodide.runPython(harnessSource, { globals: namespace as never, filename: HARNESS_FILENAME });
  makeHarness = namespace.get("make_harness") as PyCallable;
  // The JS bridge goes before any guest code exists: no finder can produce it again, and the
  // harness refuses its import besides.
  pyodide.unregisterJsModule("js");
  pyodide.unregisterJsModule("pyodide_js");
  const scratch = (pyodide.globals.get("dict") as PyCallable)();
  pyodide.runPython(FORGET_JS_MODULES, { globals: scratch as never });
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
  setWasmMemoryCap(config.limits.maxMemoryBytes);
  maxToolCalls = config.limits.maxToolCalls;
  const entries = makeHarness(JSON.stringify(config), RECURSION_LIMIT) as {
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
        const tape = message.tape === undefined ? undefined : JSON.stringify(message.tape);
        return JSON.parse(live().run_step(message.runId, message.code, tape)) as HarnessRunResult;
      } catch (error) {
        // The interrupt reached Python between the harness's own lines: the step was stopped.
        if (
          error instanceof Error &&
          error.name === "PythonError" &&
          error.message.includes("KeyboardInterrupt")
        ) {
          // The harness never reported its tape: what it gave is unknown, so no replay.
          const tape = message.tape ? { tape: { clocks: {}, complete: false } } : {};
          return { outputJson: null, isFinalAnswer: false, logs: "", interrupted: true, ...tape };
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
