import { type LimitKinds, resolveLimitValues } from "@atrium/spec";

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
  traceOutputChars: number;
  /** Pages the scripted docs model reads with `cat` before answering. */
  scriptedPagesRead: number;
  /** Key terms the scripted docs model greps for (the longest question words win). */
  scriptedMaxTerms: number;
  /** Sentences the scripted docs model quotes in its answer. */
  scriptedAnswerSentences: number;
  /** Questions in one evaluation file. */
  evalMaxQuestions: number;
}

export const DEFAULT_DEMO_LIMITS: Readonly<DemoLimits> = Object.freeze({
  maxSteps: 8,
  maxQuestionChars: 2_000,
  stepTimeoutMs: 60_000,
  traceOutputChars: 600,
  scriptedPagesRead: 2,
  scriptedMaxTerms: 5,
  scriptedAnswerSentences: 2,
  evalMaxQuestions: 500,
});

const KINDS: LimitKinds<DemoLimits> = {
  maxSteps: "count",
  maxQuestionChars: "count",
  stepTimeoutMs: "duration",
  traceOutputChars: "count",
  scriptedPagesRead: "count",
  scriptedMaxTerms: "count",
  scriptedAnswerSentences: "count",
  evalMaxQuestions: "count",
};

export function resolveDemoLimits(partial: Partial<DemoLimits> = {}): Readonly<DemoLimits> {
  return resolveLimitValues("@atrium/demo", DEFAULT_DEMO_LIMITS, KINDS, partial);
}
