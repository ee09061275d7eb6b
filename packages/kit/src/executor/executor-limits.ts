import type { LimitKinds } from "../limits/resolve-limit-values.js";

/**
 * The limits every sandboxed executor takes under the same names (docs/NAMING.md), each an
 * option of its constructor; a package's own limits (`QuickJsLimits`, `PythonLimits`,
 * `MicroVmExecutorLimits`) extend these with what only its sandbox has.
 */
export interface ExecutorLimits {
  /** Wall-clock budget of one run when `run` is given none. */
  timeoutMs: number;
  /** How long an aborted or closed run may take to unwind before its sandbox is replaced. */
  stopGraceMs: number;
  /**
   * The least time past a run's timeout the host waits for a sandbox that does not answer (code
   * that catches the interrupt, a long native call) before replacing it; the wait is the larger
   * of this and the timeout itself, so no run lasts past max(2 × timeoutMs, timeoutMs +
   * watchdogGraceMs). An executor whose host interrupts the sandbox at the timeout counts the
   * grace from that interrupt.
   */
  watchdogGraceMs: number;
  /** Largest JSON text one value may take crossing the sandbox boundary (a tool's input or result). */
  maxTransferChars: number;
  /** Printed characters kept per run; the rest is dropped with a note (`boundOutput`). */
  maxOutputChars: number;
  /** Longest error message (a tool's included) that crosses the boundary; the rest is cut, saying how much. */
  maxErrorChars: number;
}

export const EXECUTOR_LIMIT_KINDS: LimitKinds<ExecutorLimits> = {
  timeoutMs: "duration",
  stopGraceMs: "duration",
  watchdogGraceMs: "duration",
  maxTransferChars: "count",
  maxOutputChars: "count",
  maxErrorChars: "count",
};

/**
 * The limits among an executor's options (the fields `defaults` has), ready for its
 * `resolve…Limits`: options carry limits beside other settings (tools, isolation, a machine).
 */
export function limitOptions<Limits extends object>(
  options: Partial<Limits>,
  defaults: Readonly<Limits>,
): Partial<Limits> {
  const limits: Partial<Limits> = {};
  for (const field of Object.keys(defaults) as (keyof Limits)[]) {
    if (options[field] !== undefined) limits[field] = options[field];
  }
  return limits;
}
