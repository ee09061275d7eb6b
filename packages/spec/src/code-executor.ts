import type { ApprovalHandler } from "./approval.js";
import type { Closeable } from "./closeable.js";
import type { ImagePart } from "./messages.js";
import type { Tool } from "./tool.js";

export type CodeLanguage = "javascript" | "python" | "bash";

/** Every `CodeLanguage`, for validating a value that crossed a boundary. */
export const CODE_LANGUAGES: readonly CodeLanguage[] = ["javascript", "python", "bash"];

/**
 * What separates guest code from the host: a `node:vm` context ("in-process", no security
 * boundary), a worker thread, a child process, a WebAssembly instance, or a virtual machine.
 */
export type ExecutorIsolation = "in-process" | "worker" | "process" | "wasm" | "vm";

export const EXECUTOR_ISOLATIONS: readonly ExecutorIsolation[] = [
  "in-process",
  "worker",
  "process",
  "wasm",
  "vm",
];

/** What guest code may reach on the network by itself (tools are the host's business). */
export type ExecutorNetwork = "none" | "allow-list" | "full";

export const EXECUTOR_NETWORKS: readonly ExecutorNetwork[] = ["none", "allow-list", "full"];

/**
 * What an executor offers, known before any code runs: an app lists executors by these, and a
 * CodeAgent picks its prompt dialect (and code-block parsing, tool signatures) by `language`.
 */
export interface ExecutorCapabilities {
  /** Same as the executor's `language`. */
  readonly language: CodeLanguage;
  /** Variables and functions survive from one `run` to the next (until `reset`). */
  readonly persistentState: boolean;
  /** Tools given to `setTools` are callable from inside the code. */
  readonly tools: boolean;
  readonly isolation: ExecutorIsolation;
  readonly network: ExecutorNetwork;
  /** Runs can be recorded and replayed (`ExecutorRunOptions.journal`). */
  readonly replay?: boolean;
  /** A run waiting on tool calls can be saved whole and finished elsewhere (`saveWaitingRun`). */
  readonly snapshots?: boolean;
}

export interface ExecutorRunOptions {
  /** Aborting interrupts the code; `run` then rejects with `AbortError`. */
  signal?: AbortSignal;
  /**
   * Wall-clock budget for this run; exceeding it yields an `error` of kind "timeout". Without
   * it, the executor's `timeoutMs` option applies (see docs/NAMING.md for the options every
   * executor shares: `timeoutMs`, `stopGraceMs`, `maxTransferChars`, `maxOutputChars`).
   */
  timeoutMs?: number;
  /**
   * Asked about every tool call that needs approval (`Tool.needsApproval`). Without it such calls
   * are refused. The wait does not count against `timeoutMs`; it has `approvalTimeoutMs` instead.
   */
  onApproval?: ApprovalHandler;
  /** The longest one call waits for its answer (default `DEFAULT_APPROVAL_TIMEOUT_MS`); then it is refused. */
  approvalTimeoutMs?: number;
  /**
   * Makes the step replayable (`ExecutorCapabilities.replay`): `record` is filled in as the step
   * runs (every tool call with its outcome, then the values of the code's non-deterministic
   * sources), even when the run ends by an abort; `replay` answers the step's tool calls from an
   * earlier record, in order, without running them (a different call is refused with
   * `ReplayMismatchError`), then lets the rest run live.
   */
  journal?: { record?: StepJournal; replay?: StepJournal };
}

/** One tool call of a recorded step: what the code asked, and what it got back. */
export interface JournalCall {
  /** The call's id in the run that made the record. */
  id?: string;
  name: string;
  /** The input as JSON text (a long one as `sha256:<hex>` of it). */
  input: string;
  /** Absent: the call had not finished when the record was taken; a replay runs it live. */
  outcome?: { ok: true; json?: string } | { ok: false; name: string; message: string };
}

/** What a replay of a step needs: its tool calls in order, and its sandbox's tape. */
export interface StepJournal {
  toolCalls: JournalCall[];
  /**
   * The call that waited for an approval when the record was taken (its index): a replay lets it
   * run (to be answered); any other call without an outcome is answered with an error, not run.
   */
  pending?: number;
  /** The values the code's random numbers and clock gave (a JSON value its sandbox kind reads). */
  tape?: unknown;
}

/**
 * Why a run failed. These are values, not exceptions: the sandbox contained the failure and the
 * model should see it. "timeout", "memory" and "output-limit" are limits of one run; the executor
 * stays usable afterwards (state may be lost only when `stateLost` is true). "crashed" means the
 * sandbox itself died (a crash, its worker or process gone, its VM gone): the executor started a
 * new one, so it stays usable, but `stateLost` is always true.
 */
export type ExecutionErrorKind =
  | "syntax"
  | "runtime"
  | "tool"
  | "timeout"
  | "memory"
  | "output-limit"
  | "crashed";

/** Every `ExecutionErrorKind`, for validating an error that came out of a sandbox. */
export const EXECUTION_ERROR_KINDS: readonly ExecutionErrorKind[] = [
  "syntax",
  "runtime",
  "tool",
  "timeout",
  "memory",
  "output-limit",
  "crashed",
];

export interface ExecutionError {
  kind: ExecutionErrorKind;
  name: string;
  message: string;
  /** 1-based line in the submitted code where it failed, when known. */
  line?: number;
  /** The text of that line, so the model sees what failed. */
  lineText?: string;
  /** True when the executor had to discard its state (variables) to recover. */
  stateLost?: boolean;
}

export interface ExecutionResult {
  /** The value of `final_answer(x)` when called, else the last expression's value (or undefined). */
  output: unknown;
  /**
   * Everything printed (console.log / print), at most the executor's `maxOutputChars` (20,000
   * by default): past it the first and last halves are kept with a note of how many characters
   * were dropped between them.
   */
  logs: string;
  isFinalAnswer: boolean;
  error?: ExecutionError;
  /** Images produced during the run (by tools or the code), for the next model call. */
  images?: ImagePart[];
  durationMs: number;
}

/**
 * Runs model-written code with state that persists across `run` calls until `reset`, like a
 * notebook. Tools are callable from inside (a bridge back to the host), never by giving the
 * sandbox host access. Every executor defines `final_answer(value)`.
 *
 * Errors in the code are returned in `ExecutionResult.error`; `run` rejects only for fatal
 * conditions: `AbortError` (signal), `ClosedError` (after `close`), `ExecutorBusyError`.
 *
 * Runs never overlap. A second `run` while one is going on (a tool calling back into the
 * executor that runs it, say) is refused at once with `ExecutorBusyError` (code "CONFIG",
 * fatal), and so are `setTools`, `setVariables` and `reset`; the run under way goes on
 * unharmed. Nothing is queued: a caller that wants concurrency uses a second executor.
 */
export interface CodeExecutor extends Closeable {
  readonly language: CodeLanguage;
  readonly capabilities: ExecutorCapabilities;
  run(code: string, options?: ExecutorRunOptions): Promise<ExecutionResult>;
  setTools(tools: readonly Tool[]): void | Promise<void>;
  /** Defines (or overwrites) global variables; values are copied in as JSON-compatible data. */
  setVariables(variables: Record<string, unknown>): void | Promise<void>;
  /** Drops all state (variables, functions) but keeps tools. */
  reset(): Promise<void>;
  /**
   * Saves the whole sandbox to `path` while the run under way waits on its tool calls (a
   * micro-VM's snapshot; `capabilities.snapshots`), for `ExecutorFactory.restore` in this process
   * or another to finish that run. The run under way is then stopped by its caller.
   */
  saveWaitingRun?(path: string): Promise<void>;
  /**
   * On an executor made by `ExecutorFactory.restore`: finishes the run its sandbox was saved
   * in, the tool calls it waits on made again on this side (with `options.onApproval` for those
   * that need approval), and returns that run's result.
   */
  finishWaitingRun?(options?: ExecutorRunOptions): Promise<ExecutionResult>;
}

/**
 * Makes fresh executors of one kind: an app lists the executors it can offer by their
 * capabilities, and an agent makes a new sandbox for each managed or forked agent.
 */
export interface ExecutorFactory {
  /** The capabilities of every executor `create` returns. */
  readonly capabilities: ExecutorCapabilities;
  create(): Promise<CodeExecutor>;
  /** An executor over a sandbox `saveWaitingRun` saved, with these tools on the host's side. */
  restore?(path: string, tools: readonly Tool[]): Promise<CodeExecutor>;
}
