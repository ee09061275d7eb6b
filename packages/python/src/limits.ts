import {
  DEFAULT_MAX_OUTPUT_CHARS,
  EXECUTOR_LIMIT_KINDS,
  type ExecutorLimits,
  type LimitKinds,
  resolveLimitValues,
} from "@atrium/kit";

/**
 * Limits of one Python sandbox and of the host's watch over it; each is a `PythonExecutor`
 * option. Those every executor shares (`timeoutMs`, `stopGraceMs`, `watchdogGraceMs`,
 * `maxTransferChars`, `maxOutputChars`, `maxErrorChars`) have the same names and meaning in each.
 */
export interface PythonLimits extends ExecutorLimits {
  /** Wall-clock budget of one run when `run` is given none. */
  timeoutMs: number;
  /**
   * Cap of the wasm linear memory (the whole interpreter: CPython, the standard library loaded so
   * far, and the guest's objects). A loaded Pyodide holds about 40 MB; past the cap, allocations
   * fail with a `MemoryError` the code sees.
   */
  maxMemoryBytes: number;
  /** Characters of printed output kept in a result (head and tail, the middle cut). */
  maxOutputChars: number;
  /** Characters a step may print in all before it is stopped as an output flood. */
  maxPrintedChars: number;
  /** Characters of JSON of one value crossing the boundary (tool input or result, answer). */
  maxTransferChars: number;
  /** Tool calls in one step. */
  maxToolCalls: number;
  /** Characters of an error message kept. */
  maxErrorChars: number;
  /** Characters of code in one step. */
  maxCodeChars: number;
  /**
   * How long past its time budget a run may go on before its worker is terminated (guest code
   * that catches the interrupt, or a long native call): no run lasts past
   * max(2 × timeout, timeout + watchdogGraceMs). Counted from the interrupt the host sends at
   * the time limit, so a host that got to it late does not take the grace from the worker.
   */
  watchdogGraceMs: number;
  /** How long an aborted or closed run may take to stop before its worker is terminated. */
  stopGraceMs: number;
}

export const DEFAULT_PYTHON_LIMITS: Readonly<PythonLimits> = Object.freeze({
  timeoutMs: 30_000,
  maxMemoryBytes: 512 * 1024 * 1024,
  maxOutputChars: DEFAULT_MAX_OUTPUT_CHARS,
  maxPrintedChars: 1_000_000,
  maxTransferChars: 5_000_000,
  maxToolCalls: 1_000,
  maxErrorChars: 4_000,
  maxCodeChars: 200_000,
  watchdogGraceMs: 1_000,
  stopGraceMs: 1_000,
});

const PYTHON_LIMIT_KINDS: LimitKinds<PythonLimits> = {
  ...EXECUTOR_LIMIT_KINDS,
  maxMemoryBytes: "count",
  maxPrintedChars: "count",
  maxToolCalls: "count",
  maxCodeChars: "count",
};

export function resolvePythonLimits(partial: Partial<PythonLimits> = {}): Readonly<PythonLimits> {
  return resolveLimitValues("@atrium/python", DEFAULT_PYTHON_LIMITS, PYTHON_LIMIT_KINDS, partial);
}
