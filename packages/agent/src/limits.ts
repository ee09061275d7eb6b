import {
  DEFAULT_MAX_OUTPUT_CHARS,
  EXECUTOR_LIMIT_KINDS,
  type ExecutorLimits,
  type LimitKinds,
  resolveLimitValues,
} from "@atrium/kit";

/**
 * Every limit of @atrium/agent, one interface per area (the QuickJS sandbox, the agent loop, the
 * model layer), each with one frozen defaults record and one resolver built on the spec's
 * `resolveLimitValues`, so a bad override is refused naming the field. Options override the
 * defaults; numbers that only tune speed or estimates live in `tuning.ts`.
 */

const OWNER = "@atrium/agent";

// ── QuickJS executor ──────────────────────────────────────────────────────────────────────────

/**
 * Limits of one QuickJS sandbox and of the host's watch over it; each is a `QuickJsExecutor`
 * option. Those every executor shares (`timeoutMs`, `stopGraceMs`, `watchdogGraceMs`,
 * `maxTransferChars`, `maxOutputChars`, `maxErrorChars`) have the same names and meaning in each.
 */
export interface QuickJsLimits extends ExecutorLimits {
  /** Wall-clock budget of one `run` (sync code, awaited tools and jobs together). */
  timeoutMs: number;
  /** Heap of one sandbox; an allocation past it fails inside the code with an "out of memory" error. */
  maxMemoryBytes: number;
  /**
   * Interpreter stack. Kept small on purpose: QuickJS's own check must fire before the wasm
   * frames exhaust Node's native stack (about 1 MB); 256 KiB allows ~1,400 plain recursive calls.
   */
  maxStackBytes: number;
  /** Printed characters kept per run; beyond it the middle is cut (head and tail stay). */
  maxOutputChars: number;
  /** Printed characters after which a run is a flood and ends with an "output-limit" error. */
  maxPrintedChars: number;
  /** Tool calls one run may make; the next one ends the run. */
  maxToolCalls: number;
  /** Promise jobs (microtasks) one run may execute; past it the run ends (a promise flood). */
  maxJobs: number;
  /** Longest code one run accepts. */
  maxCodeChars: number;
  /** Largest JSON text one value may take crossing the sandbox boundary (results, tool data). */
  maxTransferChars: number;
  /**
   * Characters that may cross the sandbox boundary in one run, all values together (tool inputs
   * and results, printed output, the answer, the error); past it the run ends ("output-limit").
   */
  maxStepTransferChars: number;
  /** Longest error message (and stack) read out of the sandbox; the rest is cut, saying how much. */
  maxErrorChars: number;
  /** Time allowed, after a run stopped, for reading its error out of the sandbox (getters run there). */
  cleanupMs: number;
  /**
   * The least time past a run's timeout the host waits for the sandbox worker before replacing
   * it; the wait is the larger of this and the timeout itself, so a run ends by
   * max(2 × timeoutMs, timeoutMs + watchdogGraceMs) even when native code (a sort, an
   * allocation) does not check the interrupt flag.
   */
  watchdogGraceMs: number;
  /** How long after an abort or close the host waits for the sandbox worker before replacing it. */
  stopGraceMs: number;
}

export const DEFAULT_QUICKJS_LIMITS: Readonly<QuickJsLimits> = Object.freeze({
  timeoutMs: 30_000,
  maxMemoryBytes: 64 * 1024 * 1024,
  maxStackBytes: 256 * 1024,
  maxOutputChars: DEFAULT_MAX_OUTPUT_CHARS,
  maxPrintedChars: 5_000_000,
  maxToolCalls: 200,
  maxJobs: 1_000_000,
  maxCodeChars: 200_000,
  maxTransferChars: 5_000_000,
  maxStepTransferChars: 20_000_000,
  maxErrorChars: 20_000,
  cleanupMs: 250,
  watchdogGraceMs: 1_000,
  stopGraceMs: 1_000,
});

const QUICKJS_LIMIT_KINDS: LimitKinds<QuickJsLimits> = {
  ...EXECUTOR_LIMIT_KINDS,
  maxMemoryBytes: "count",
  maxStackBytes: "count",
  maxPrintedChars: "count",
  maxToolCalls: "count",
  maxJobs: "count",
  maxCodeChars: "count",
  maxStepTransferChars: "count",
  cleanupMs: "duration",
};

/** The QuickJS defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveQuickJsLimits(partial: Partial<QuickJsLimits> = {}): Readonly<QuickJsLimits> {
  return resolveLimitValues(OWNER, DEFAULT_QUICKJS_LIMITS, QUICKJS_LIMIT_KINDS, partial);
}

// ── Agent loop ────────────────────────────────────────────────────────────────────────────────

/** Limits of the agent loop; the matching agent options override them. */
export interface AgentLoopLimits {
  /** Action steps per run before the closing "answer now" model call. */
  maxSteps: number;
  /** Wall-clock budget of one code step in the sandbox (the executor interrupts past it). */
  stepTimeoutMs: number;
  /** An observation longer than this is cut in the middle, keeping its head and tail. */
  maxObservationChars: number;
  /** Images of action steps older than this many steps are replaced by a note in model requests. */
  keepImagesForSteps: number;
  /** Images one action step may add (from tools or the sandbox); the rest are left out, with a note. */
  maxStepImages: number;
  /** Largest image file or byte array `run(task, { images })` accepts, and largest image a step keeps. */
  maxImageBytes: number;
  /** Images one run may be given up front. */
  maxTaskImages: number;
  /** Native tool calls one model reply may ask for; more is answered with an error observation. */
  maxToolCallsPerStep: number;
  /** How much of each extra variable's value the task text previews for the model. */
  maxVariablePreviewChars: number;
}

export const DEFAULT_AGENT_LOOP_LIMITS: Readonly<AgentLoopLimits> = Object.freeze({
  maxSteps: 20,
  stepTimeoutMs: 30_000,
  maxObservationChars: 20_000,
  keepImagesForSteps: 2,
  maxStepImages: 8,
  maxImageBytes: 20 * 1024 * 1024,
  maxTaskImages: 16,
  maxToolCallsPerStep: 16,
  maxVariablePreviewChars: 200,
});

const AGENT_LOOP_LIMIT_KINDS: LimitKinds<AgentLoopLimits> = {
  maxSteps: "count",
  stepTimeoutMs: "duration",
  maxObservationChars: "count",
  keepImagesForSteps: "count",
  maxStepImages: "count",
  maxImageBytes: "count",
  maxTaskImages: "count",
  maxToolCallsPerStep: "count",
  maxVariablePreviewChars: "count",
};

/** The agent loop's defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
/** The loop's defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveAgentLoopLimits(partial: Partial<AgentLoopLimits> = {}): Readonly<AgentLoopLimits> {
  return resolveLimitValues(OWNER, DEFAULT_AGENT_LOOP_LIMITS, AGENT_LOOP_LIMIT_KINDS, partial);
}

// ── Models ────────────────────────────────────────────────────────────────────────────────────

/** Limits of the model layer (retry policy and token estimates are tuning: `tuning.ts`). */
export interface ModelLimits {
  /** One model request (one attempt), start to end, streamed or not. */
  requestTimeoutMs: number;
  /** The longest silence between two chunks of a streamed answer (one attempt). */
  streamChunkTimeoutMs: number;
  /** A `scripted:<path>` reply file larger than this is refused. */
  maxScriptedFileBytes: number;
}

export const DEFAULT_MODEL_LIMITS: Readonly<ModelLimits> = Object.freeze({
  requestTimeoutMs: 300_000,
  streamChunkTimeoutMs: 60_000,
  maxScriptedFileBytes: 10 * 1024 * 1024,
});

const MODEL_LIMIT_KINDS: LimitKinds<ModelLimits> = {
  requestTimeoutMs: "duration",
  streamChunkTimeoutMs: "duration",
  maxScriptedFileBytes: "count",
};

/** The model layer's defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveModelLimits(partial: Partial<ModelLimits> = {}): Readonly<ModelLimits> {
  return resolveLimitValues(OWNER, DEFAULT_MODEL_LIMITS, MODEL_LIMIT_KINDS, partial);
}
