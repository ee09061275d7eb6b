import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import type { ExecutionError } from "@atrium/spec";
import type { PythonLimits } from "./limits.js";
import type { HarnessTapeReport, HarnessTapeRequest } from "./python-tape.js";

/**
 * Messages between `PythonExecutor` (main thread) and its Pyodide worker, and the shared memory
 * both use. The only module both sides of the thread boundary import, so the layout of the
 * shared memory and the code that reads and writes it exist once.
 *
 * Requests and replies travel by `postMessage`: a step is one hop each way. A tool call cannot:
 * Python waits for the answer synchronously, in the middle of the step, so the worker blocks in
 * `Atomics.wait` on the shared tool slot while the host runs the tool on its event loop and
 * writes the outcome there. The same memory holds Pyodide's interrupt word, which the host sets
 * to stop a run (CPython raises KeyboardInterrupt at its next check) and which also ends a wait
 * for a tool.
 */

export type ToolOutcome =
  | { ok: true; json: string | undefined }
  | { ok: false; name: string; message: string };

/** What the Python harness reports about a run (see harness/harness.py). */
export interface HarnessRunResult {
  outputJson: string | null;
  isFinalAnswer: boolean;
  logs: string;
  error?: ExecutionError;
  /** KeyboardInterrupt ended the run: the host asked it to stop. */
  interrupted: boolean;
  /** A recorded step's tape (python-tape.ts); only when the run request carried `tape`. */
  tape?: HarnessTapeReport;
}

/** The limits the Python harness enforces itself (the host enforces the others). */
export type HarnessLimits = Pick<
  PythonLimits,
  "maxMemoryBytes" | "maxPrintedChars" | "maxTransferChars" | "maxToolCalls" | "maxErrorChars"
>;

export interface InitConfig {
  limits: HarnessLimits;
  authorizedImports: string[];
}

export type HostToWorker =
  | { type: "init"; id: number; config: InitConfig }
  /** `tape` only for a step that records its non-deterministic sources (python-tape.ts). */
  | { type: "run"; id: number; runId: number; code: string; deadline: number; tape?: HarnessTapeRequest }
  | { type: "set-tools"; id: number; tools: [name: string, params: string[]][] }
  | { type: "set-variables"; id: number; entries: [name: string, json: string | null][] }
  | { type: "reset"; id: number };

export type ReplyValue = HarnessRunResult | undefined;

export type WorkerToHost =
  | { type: "ready" }
  /** The first worker of a process sends a memory snapshot of its fresh interpreter. */
  | { type: "snapshot"; memory: SharedArrayBuffer }
  | { type: "boot-failed"; message: string }
  | { type: "reply"; id: number; ok: true; value?: ReplyValue }
  | { type: "reply"; id: number; ok: false; error: { name: string; message: string }; fatal: boolean }
  | { type: "tool-call"; runId: number; callId: number; name: string; json: string };

// ── shared memory ───────────────────────────────────────────────────────────────────────────
// Int32 words: [0] Pyodide's interrupt word (2 = SIGINT), [1] tool slot state, [2] length of
// the outcome in the slot (-1: it waits on the MessagePort), [3] the call id it answers.

export const INTERRUPT = 0;
const TOOL_STATE = 1;
const TOOL_LENGTH = 2;
const TOOL_CALL_ID = 3;
const CONTROL_BYTES = 64;
/** Bytes of the tool slot; larger outcomes take the MessagePort (a copy, not a failure). */
export const TOOL_SLOT_BYTES = 64 * 1024;
const EMPTY = 0;
const FULL = 1;
const ON_PORT = -1;
/** SIGINT, as Pyodide's interrupt buffer expects it. */
export const SIGINT = 2;
/** How long the worker sleeps between looks at the interrupt word while a tool runs. */
const TOOL_WAIT_SLICE_MS = 50;

export function newSharedMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_BYTES + TOOL_SLOT_BYTES);
}

export function controlWords(memory: SharedArrayBuffer): Int32Array {
  return new Int32Array(memory, 0, CONTROL_BYTES / 4);
}

/** Host: asks the running step to stop, and wakes a worker waiting for a tool. */
export function interrupt(memory: SharedArrayBuffer): void {
  const words = controlWords(memory);
  Atomics.store(words, INTERRUPT, SIGINT);
  Atomics.notify(words, TOOL_STATE);
  // A guest in time.sleep waits on the interrupt word itself.
  Atomics.notify(words, INTERRUPT);
}

export function clearInterrupt(memory: SharedArrayBuffer): void {
  Atomics.store(controlWords(memory), INTERRUPT, 0);
}

/** Host: writes the outcome of tool call `callId` and wakes the worker. */
export function putToolOutcome(
  memory: SharedArrayBuffer,
  port: MessagePort,
  callId: number,
  outcome: ToolOutcome,
): void {
  const words = controlWords(memory);
  const json = JSON.stringify(outcome);
  const bytes = new Uint8Array(memory, CONTROL_BYTES, TOOL_SLOT_BYTES);
  const { read, written } =
    json.length <= TOOL_SLOT_BYTES ? new TextEncoder().encodeInto(json, bytes) : { read: 0, written: 0 };
  if (read === json.length) {
    Atomics.store(words, TOOL_LENGTH, written);
  } else {
    port.postMessage(json);
    Atomics.store(words, TOOL_LENGTH, ON_PORT);
  }
  Atomics.store(words, TOOL_CALL_ID, callId);
  Atomics.store(words, TOOL_STATE, FULL);
  Atomics.notify(words, TOOL_STATE);
}

/** Worker: empties the slot before a call, so an answer to an older call is never read. */
export function clearToolSlot(memory: SharedArrayBuffer, port: MessagePort): void {
  const words = controlWords(memory);
  if (Atomics.load(words, TOOL_STATE) === FULL && Atomics.load(words, TOOL_LENGTH) === ON_PORT) {
    receiveMessageOnPort(port);
  }
  Atomics.store(words, TOOL_STATE, EMPTY);
}

/**
 * Worker: blocks until the outcome of `callId` arrives or the host interrupts; returns the
 * outcome's JSON, or `{"interrupted": true}`. No deadline of its own: the host keeps the step's
 * time limit (it interrupts at it), and stops that clock while the call waits for an approval.
 */
export function waitForToolOutcome(memory: SharedArrayBuffer, port: MessagePort, callId: number): string {
  const words = controlWords(memory);
  const decoder = new TextDecoder();
  for (;;) {
    if (Atomics.load(words, TOOL_STATE) === FULL) {
      const length = Atomics.load(words, TOOL_LENGTH);
      const answered = Atomics.load(words, TOOL_CALL_ID);
      let json: string;
      if (length === ON_PORT) {
        const received = receiveMessageOnPort(port);
        if (!received) throw new Error("tool channel: an outcome announced on the port is missing");
        json = received.message as string;
      } else {
        json = decoder.decode(new Uint8Array(memory, CONTROL_BYTES, length).slice());
      }
      Atomics.store(words, TOOL_STATE, EMPTY);
      if (answered === callId) return json;
      continue;
    }
    if (Atomics.load(words, INTERRUPT) !== 0) return INTERRUPTED;
    Atomics.wait(words, TOOL_STATE, EMPTY, TOOL_WAIT_SLICE_MS);
  }
}

const INTERRUPTED = '{"interrupted":true}';
