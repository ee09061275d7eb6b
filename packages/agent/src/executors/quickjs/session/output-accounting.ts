import type { SessionCore } from "./session-core.js";
import type { SessionRun } from "./session-run.js";

/**
 * Output accounting of a step: what it prints (kept within `maxOutputChars` by the run's
 * `OutputBuffer`, a flood past `maxPrintedChars` stopped), its final answer, and every
 * character that crosses the sandbox boundary in the step, bounded by `maxStepTransferChars`.
 */

/**
 * Counts `chars` crossing the boundary in `run`; false (and the run stopping) once the step's
 * budget is spent.
 */
export function crossBoundary(core: SessionCore, run: SessionRun, chars: number): boolean {
  run.crossedChars += chars;
  if (run.crossedChars <= core.limits.maxStepTransferChars) return true;
  run.stopAtLimit(
    "output-limit",
    "RangeError",
    `The code moved more than ${core.limits.maxStepTransferChars} characters across the sandbox boundary in one step (tool inputs and results, printed output, answers) and was stopped; move less data per step`,
  );
  return false;
}

/** Printed text, as JSON text (a C string would end at a NUL and lose lone surrogates). */
export function printFromSandbox(core: SessionCore, json: string): void {
  const run = core.active;
  if (!run || (run.stop && core.drainingUntil === undefined)) return;
  const text: unknown = JSON.parse(json);
  if (typeof text !== "string") throw new TypeError("the sandbox printed something that is not text");
  if (!crossBoundary(core, run, json.length)) return;
  run.output.append(text);
  if (run.output.printed > core.limits.maxPrintedChars) {
    run.stopAtLimit(
      "output-limit",
      "OutputLimitError",
      `The code printed more than ${core.limits.maxPrintedChars} characters (an output flood) and was stopped; print less, or a summary`,
    );
  }
}

/** `final_answer(value)`: the value as JSON text (undefined: no value); the step stops with it. */
export function finalAnswerFromSandbox(core: SessionCore, json: string | undefined): void {
  const run = core.active;
  if (!run) throw new Error("final_answer can only be called while a step runs");
  if (json !== undefined && !crossBoundary(core, run, json.length)) return;
  if (json !== undefined && json.length > core.limits.maxTransferChars) {
    throw new RangeError(
      `the final answer is ${json.length} characters of JSON; the limit is ${core.limits.maxTransferChars}`,
    );
  }
  run.requestStop({ type: "final", json });
}
