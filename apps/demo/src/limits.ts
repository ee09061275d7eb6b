import { type LimitKinds, resolveLimitValues } from "@atrium/kit";

/**
 * Every limit of the demo app in the shape of the other packages' `limits.ts`: one interface,
 * one frozen defaults record, and `resolveDemoLimits(partial)`, which refuses a bad override
 * naming the field.
 */
export interface DemoLimits {
  /** Action steps of one question before the agent's closing call must answer. */
  maxSteps: number;
  /** Longest question accepted, in characters. */
  maxQuestionChars: number;
  /** Wall-clock budget of one code step (the greps of a step run inside it). */
  stepTimeoutMs: number;
  /** Characters of a docs command's output shown in a `docs-command` event (the trace). */
  maxTraceOutputChars: number;
  /** Pages the scripted docs model reads with `cat` before answering. */
  scriptedPagesRead: number;
  /** Key terms the scripted docs model greps for (the longest question words win). */
  maxScriptedTerms: number;
  /** Sentences the scripted docs model quotes in its answer. */
  scriptedAnswerSentences: number;
  /** Questions in one evaluation file. */
  maxEvalQuestions: number;
  /** Web UI: largest request body (an ask with its images, as multipart form data), in bytes. */
  maxWebBodyBytes: number;
  /** Web UI: largest image sent with a question, in bytes (PNG, JPEG, GIF or WebP only). */
  maxWebImageBytes: number;
  /** Web UI: images sent with one question. */
  maxWebImages: number;
  /** Web UI: questions answered at once by one server; more get 429 until one ends. */
  maxConcurrentAsks: number;
  /** Web UI: an ask whose stream has had no event for this long is stopped (and says so). */
  webSseIdleTimeoutMs: number;
  /**
   * The longest a tool call waits for a person's Approve or Deny (`--approve memory-writes`);
   * then it is refused, the code sees why, and the run goes on. The web UI's idle limit does not
   * count while a call waits.
   */
  approvalTimeoutMs: number;
  /** Memory: tokens of the palace's wake-up context added to the instructions of each question. */
  memoryWakeUpTokens: number;
  /** Memory: remembered items recalled for a question before the agent starts. */
  memoryRecallK: number;
  /** Memory: drawers the memory panel lists (newest first). */
  memoryPanelDrawers: number;
  /** Memory: knowledge-graph facts the memory panel lists. */
  memoryPanelFacts: number;
}

export const DEFAULT_DEMO_LIMITS: Readonly<DemoLimits> = Object.freeze({
  maxSteps: 8,
  maxQuestionChars: 2_000,
  stepTimeoutMs: 60_000,
  maxTraceOutputChars: 600,
  scriptedPagesRead: 2,
  maxScriptedTerms: 5,
  scriptedAnswerSentences: 2,
  maxEvalQuestions: 500,
  maxWebBodyBytes: 12 * 1024 * 1024,
  maxWebImageBytes: 5 * 1024 * 1024,
  maxWebImages: 2,
  maxConcurrentAsks: 4,
  webSseIdleTimeoutMs: 120_000,
  approvalTimeoutMs: 120_000,
  memoryWakeUpTokens: 170,
  memoryRecallK: 3,
  memoryPanelDrawers: 20,
  memoryPanelFacts: 50,
});

const KINDS: LimitKinds<DemoLimits> = {
  maxSteps: "count",
  maxQuestionChars: "count",
  stepTimeoutMs: "duration",
  maxTraceOutputChars: "count",
  scriptedPagesRead: "count",
  maxScriptedTerms: "count",
  scriptedAnswerSentences: "count",
  maxEvalQuestions: "count",
  maxWebBodyBytes: "count",
  maxWebImageBytes: "count",
  maxWebImages: "count",
  maxConcurrentAsks: "count",
  webSseIdleTimeoutMs: "duration",
  approvalTimeoutMs: "duration",
  memoryWakeUpTokens: "count",
  memoryRecallK: "count",
  memoryPanelDrawers: "count",
  memoryPanelFacts: "count",
};

export function resolveDemoLimits(partial: Partial<DemoLimits> = {}): Readonly<DemoLimits> {
  return resolveLimitValues("@atrium/demo", DEFAULT_DEMO_LIMITS, KINDS, partial);
}
