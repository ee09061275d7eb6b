import type { ImagePart } from "./messages.js";
import type { Tool } from "./tool.js";

/** Contract version of `CodeExecutor`; bump on a breaking change. */
export const CODE_EXECUTOR_CONTRACT_VERSION = 1;

export type CodeLanguage = "javascript" | "python" | "bash";

export interface RunOptions {
  /** Aborting interrupts the code; `run` then rejects with `AbortError`. */
  signal?: AbortSignal;
  /** Wall-clock budget for this run; exceeding it yields an `error` with code "timeout". */
  timeoutMs?: number;
}

/**
 * Why a run failed. These are values, not exceptions: the sandbox contained the failure and the
 * model should see it. "timeout", "memory" and "output-limit" are limits of one run; the executor
 * stays usable afterwards (state may be lost only when `stateLost` is true).
 */
export type ExecutionErrorKind = "syntax" | "runtime" | "tool" | "timeout" | "memory" | "output-limit";

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
  /** Everything printed (console.log / print), bounded by the executor's output limit. */
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
 * conditions: `AbortError` (signal), `ClosedError` (after `close`).
 */
export interface CodeExecutor {
  readonly language: CodeLanguage;
  run(code: string, options?: RunOptions): Promise<ExecutionResult>;
  setTools(tools: readonly Tool[]): void | Promise<void>;
  /** Defines (or overwrites) global variables; values are copied in as JSON-compatible data. */
  setVariables(variables: Record<string, unknown>): void | Promise<void>;
  /** Drops all state (variables, functions) but keeps tools. */
  reset(): Promise<void>;
  /** Frees everything; idempotent. */
  close(): Promise<void>;
}
