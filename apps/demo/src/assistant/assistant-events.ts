import type { AgentEvent, RunState } from "@atrium/spec";

/** A shell command the agent ran over the docs, with what it printed (cut for the trace). */
export interface DocsCommandEvent {
  type: "docs-command";
  step: number;
  command: string;
  /** stdout, cut to `maxTraceOutputChars` (`stdoutChars` tells the full length). */
  stdout: string;
  stdoutChars: number;
  stderr: string;
  exitCode: number;
  durationMs: number;
}

/** One page the answer cites; `verified` when a docs tool printed or read that path in this run. */
export interface Citation {
  path: string;
  verified: boolean;
}

/** Where one question's time went (milliseconds). */
export interface QuestionTiming {
  /** Docs tool calls (grep, cat, search ... over ChromaFs). */
  retrievalMs: number;
  /** Recall before the run and filing after it (0 without memory). */
  memoryMs: number;
  /** Code in the sandbox, minus the docs tool calls it waited for. */
  executionMs: number;
  /** Model calls. */
  modelMs: number;
  totalMs: number;
}

/** The last event of every question. */
export interface AnswerEvent {
  type: "answer";
  state: RunState;
  /** The answer's text ("" when the run failed; the `error` event before says why). */
  answer: string;
  citations: Citation[];
  steps: number;
  timing: QuestionTiming;
}

/**
 * What memory recalled (only with a memory plugged in): `via` "question" before the agent starts,
 * "tool" when the agent's code called a memory tool (recall, kg_query).
 */
export interface MemoryRecalledEvent {
  type: "memory-recalled";
  via?: "question" | "tool";
  memories: { id: string; content: string }[];
  durationMs: number;
}

/**
 * What memory filed (only with a memory plugged in): `via` "tool" when the agent remembered
 * something (remember, kg_add), "transcript" for the session filed after the answer.
 */
export interface MemoryFiledEvent {
  type: "memory-filed";
  via?: "tool" | "transcript";
  ids: string[];
  /** What was filed, when it is short enough to show (a memory's text, a fact's line). */
  memories?: { id: string; content: string }[];
  /** The session id of a filed transcript. */
  sessionId?: string;
  durationMs: number;
}

/** Opens every question: who asks what, with which model. */
export interface QuestionEvent {
  type: "question";
  question: string;
  user: string;
  model: string;
}

export type DemoEvent =
  | QuestionEvent
  | DocsCommandEvent
  | MemoryRecalledEvent
  | MemoryFiledEvent
  | AnswerEvent;

/** What `ask` yields: the agent's own events, in order, with the demo's woven in. */
/**
 * The agent's own long-term-memory events are left out: the demo recalls and files memory
 * itself (its own `memory-recalled` and `memory-filed` events, with the transcript's details),
 * so its agent runs without `longTermMemory`.
 */
export type AssistantEvent = Exclude<AgentEvent, { type: "memory-recalled" | "memory-filed" }> | DemoEvent;
