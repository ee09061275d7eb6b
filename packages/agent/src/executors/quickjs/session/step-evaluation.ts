import type { ExecutionError } from "@atrium/spec";
import type { QuickJSHandle } from "quickjs-emscripten";
import { type DescribedError, describedToExecutionError, executionError } from "../execution-errors.js";
import { NotebookSyntaxError, toNotebookScript } from "../notebook-script.js";
import { RESERVED_NAMES } from "../reserved-names.js";
import { type SessionRunResult, STOP_FLAG } from "../worker-protocol.js";
import { crossBoundary } from "./output-accounting.js";
import type { SessionCore } from "./session-core.js";
import type { SessionRun } from "./session-run.js";
import { applySettledCalls } from "./tool-bridge.js";

/**
 * Evaluation of one step: the notebook script, the loop that runs promise jobs and waits for
 * tool results until the code's promise settles (or the run must stop), the value or error read
 * out of the sandbox, and the step's result with stop reasons applied.
 */

/** How the code's promise ended, before stop reasons are applied. */
export type Settlement =
  | { type: "value"; json: string | undefined }
  | { type: "error"; error: ExecutionError };

/** Promise jobs run between checks of the run's state. */
export const JOB_BATCH = 1024;

const stopped: Settlement = { type: "error", error: { kind: "runtime", name: "Error", message: "stopped" } };

/** The notebook script for `code`, or the error that stops it from running at all. */
export function prepareScript(core: SessionCore, code: string): string | ExecutionError {
  const { limits, toolNames } = core;
  if (code.length > limits.maxCodeChars) {
    return executionError(
      "runtime",
      "RangeError",
      `The code is ${code.length} characters long; the limit is ${limits.maxCodeChars}. Split the work into smaller steps.`,
      code,
    );
  }
  try {
    const { script, declared } = toNotebookScript(code);
    for (const { name, line } of declared) {
      if (RESERVED_NAMES.has(name) || toolNames.has(name)) {
        const what = toolNames.has(name) ? "a tool" : "built in";
        return executionError(
          "syntax",
          "SyntaxError",
          `"${name}" is ${what} and cannot be declared again; choose another name`,
          code,
          line,
        );
      }
    }
    return script;
  } catch (error) {
    if (error instanceof NotebookSyntaxError) {
      return executionError("syntax", "SyntaxError", error.message, code, error.line);
    }
    throw error;
  }
}

/**
 * Runs the script until its promise settles, a tool result is awaited past the deadline, or the
 * run must stop. No timer: the interrupt handler checks the deadline while code runs, and the
 * wait for tool results ends at it.
 */
export function evaluateStep(core: SessionCore, script: string, run: SessionRun, code: string): Settlement {
  const { context } = core.sandbox;
  const evaluated = context.evalCode(script, run.fileName, { type: "global" });
  if (evaluated.error) return asSyntaxError(settleError(core, evaluated.error, run, code));
  const promise = evaluated.value;
  try {
    for (;;) {
      if (run.stop) return stopped;
      const jobError = drainJobs(core, run);
      if (jobError) return settleError(core, jobError, run, code);
      if (run.stop) return stopped;
      const state = context.getPromiseState(promise);
      if (state.type === "fulfilled") {
        if (state.notAPromise) return exportValue(core, promise, run, code);
        try {
          return exportValue(core, state.value, run, code);
        } finally {
          state.value.dispose();
        }
      }
      if (state.type === "rejected") return settleError(core, state.error, run, code);
      if (run.pending.size === 0) {
        return {
          type: "error",
          error: executionError(
            "runtime",
            "Error",
            "The code awaits a promise that can never settle (no tool call is still running)",
            code,
          ),
        };
      }
      if (run.settled.length === 0 && run.held) {
        // Nothing to run, and a call waits for a person: this wait is not the code's time.
        const idleFrom = Date.now();
        core.link.waitForHost(Number.POSITIVE_INFINITY);
        run.deadline += Date.now() - idleFrom;
      } else if (run.settled.length === 0) core.link.waitForHost(run.deadline);
      // Woken by the stop flag, or the deadline passed while tools were running.
      shouldInterrupt(core);
      applySettledCalls(core, run);
    }
  } finally {
    promise.dispose();
  }
}

/**
 * Takes the output the sandbox still buffers, even after a stop (the code's own limits no
 * longer apply; a short budget does), and readies the prelude for the next step.
 */
export function endStep(core: SessionCore): void {
  const ended = whileDraining(core, () => core.sandbox.callHelper("endStep"));
  (ended.error ?? ended.value).dispose();
}

/** Runs `read` with the short budget of a step that is over (`cleanupMs`), not the step's own. */
export function whileDraining<T>(core: SessionCore, read: () => T): T {
  core.drainingUntil = Date.now() + core.limits.cleanupMs;
  try {
    return read();
  } finally {
    core.drainingUntil = undefined;
  }
}

/** The interrupt handler: true when the code must stop now (the host's flag, the deadline). */
export function shouldInterrupt(core: SessionCore): boolean {
  if (core.drainingUntil !== undefined) return Date.now() > core.drainingUntil;
  const run = core.active;
  if (!run) return false;
  if (run.stop) return true;
  if (Atomics.load(core.stopFlag, STOP_FLAG) !== 0) {
    run.requestStop({ type: "host" });
    return true;
  }
  if (Date.now() > run.deadline) {
    run.requestStop({ type: "timeout" });
    return true;
  }
  return false;
}

/** The step's result: its settlement, unless a stop reason says otherwise. */
export function stepResult(
  run: SessionRun,
  settlement: Settlement,
  stateLost: boolean,
  started: number,
): SessionRunResult {
  const base = {
    logs: run.output.toString(),
    durationMs: performance.now() - started,
    stoppedByHost: false,
    isFinalAnswer: false,
    outputJson: undefined,
  };
  const stop = run.stop;
  switch (stop?.type) {
    case "final":
      return { ...base, outputJson: stop.json, isFinalAnswer: true };
    case "timeout": {
      const message = `The code did not finish within ${run.timeoutMs} ms and was stopped`;
      return {
        ...base,
        error: withStateLost(executionError("timeout", "TimeoutError", message, ""), stateLost),
      };
    }
    case "host":
      return { ...base, stoppedByHost: true };
    case "limit":
      return { ...base, error: withStateLost(stop.error, stateLost) };
    default:
      if (settlement.type === "value") return { ...base, outputJson: settlement.json };
      return { ...base, error: withStateLost(settlement.error, stateLost) };
  }
}

/** What a thrown value is, read through the prelude (its getters run in the sandbox, bounded). */
export function describeError(core: SessionCore, errorHandle: QuickJSHandle): DescribedError {
  const fallback = (message: string): DescribedError => ({
    isError: false,
    isToolError: false,
    name: "Error",
    message,
    stack: "",
  });
  const described = core.sandbox.callHelper("describeError", errorHandle, String(core.limits.maxErrorChars));
  if (described.error) {
    described.error.dispose();
    // Reading the error failed too; out of memory is the usual reason.
    return { ...fallback("out of memory"), name: "InternalError" };
  }
  const json = core.sandbox.takeString(described.value);
  try {
    const parsed: unknown = json ? JSON.parse(json) : undefined;
    return isDescribedError(parsed) ? parsed : fallback("the thrown value could not be read");
  } catch {
    return fallback("the thrown value could not be read");
  }
}

/** Runs queued promise jobs in batches, counting them; returns the error handle of a failed job. */
function drainJobs(core: SessionCore, run: SessionRun): QuickJSHandle | undefined {
  const { runtime } = core.sandbox;
  const { maxJobs } = core.limits;
  while (runtime.hasPendingJob()) {
    if (run.stop) return undefined;
    const executed = runtime.executePendingJobs(JOB_BATCH);
    if (executed.error) return executed.error;
    run.jobs += executed.value;
    if (run.jobs > maxJobs) {
      run.stopAtLimit(
        "runtime",
        "RangeError",
        `The code ran more than ${maxJobs} promise jobs in one step (a promise flood) and was stopped`,
      );
    }
  }
  return undefined;
}

function exportValue(core: SessionCore, value: QuickJSHandle, run: SessionRun, code: string): Settlement {
  const exported = core.sandbox.callHelper("exportValue", value);
  if (exported.error) return settleError(core, exported.error, run, code);
  const json = core.sandbox.takeString(exported.value);
  const { maxTransferChars } = core.limits;
  if (json !== undefined && !crossBoundary(core, run, json.length)) return stopped;
  if (json !== undefined && json.length > maxTransferChars) {
    return {
      type: "error",
      error: executionError(
        "output-limit",
        "RangeError",
        `The value of the last expression is ${json.length} characters of JSON; the limit is ${maxTransferChars}. Return less, or print a summary.`,
        code,
      ),
    };
  }
  return { type: "value", json };
}

/** Turns a thrown value into an error settlement; disposes the handle. */
function settleError(
  core: SessionCore,
  errorHandle: QuickJSHandle,
  run: SessionRun,
  code: string,
): Settlement {
  try {
    if (run.stop) return stopped;
    run.deadline = Date.now() + core.limits.cleanupMs;
    const described = describeError(core, errorHandle);
    return {
      type: "error",
      error: describedToExecutionError(described, code, run.fileName, core.limits.maxStackBytes),
    };
  } finally {
    errorHandle.dispose();
  }
}

/** Whether the prelude's description has the shape and types it must have (it may be forged). */
function isDescribedError(value: unknown): value is DescribedError {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.isError === "boolean" &&
    typeof v.isToolError === "boolean" &&
    typeof v.name === "string" &&
    typeof v.message === "string" &&
    typeof v.stack === "string"
  );
}

function withStateLost(error: ExecutionError, stateLost: boolean): ExecutionError {
  return stateLost ? { ...error, stateLost: true } : error;
}

/** An error from compiling the script (acorn accepted what QuickJS does not) is a syntax error. */
function asSyntaxError(settlement: Settlement): Settlement {
  if (settlement.type !== "error" || settlement.error.name !== "SyntaxError") return settlement;
  return { type: "error", error: { ...settlement.error, kind: "syntax" } };
}
