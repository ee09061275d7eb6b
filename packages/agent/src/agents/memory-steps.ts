import type { SerializedError, ToolCall, Usage } from "@atrium/spec";
import type { StoredImage } from "./stored-image.js";

/** When a step started (epoch ms) and how long it took. */
export interface StepTiming {
  startedAt: number;
  durationMs: number;
}

/** A task given to the agent; a continued run adds another. */
export interface TaskStep {
  type: "task";
  task: string;
  images?: StoredImage[];
}

/** A plan (or plan update) the model wrote before acting. */
export interface PlanningStep {
  type: "planning";
  step: number;
  plan: string;
  usage: Usage;
  timing: StepTiming;
}

/** One native tool call and what came back, for the tool-calling agent. */
export interface ToolCallRecord extends ToolCall {
  /** The text the model reads as the result. */
  observation: string;
  isError: boolean;
}

/** One think-act-observe step. */
export interface ActionStep {
  type: "action";
  step: number;
  /** The model's reply as kept in the conversation (a missing closing tag added). */
  modelOutput: string;
  /** The code that ran (code agents). */
  code?: string;
  /** The tools that were called (tool-calling agents). */
  toolCalls?: ToolCallRecord[];
  /** What the sandbox printed. */
  logs?: string;
  /** What the model reads next: logs, last value, errors with the failing line. */
  observation: string;
  /** Images produced during the step (tools, screenshots); pruned from older requests. */
  images?: StoredImage[];
  /** The last value, or the final answer when `isFinalAnswer`. */
  output?: unknown;
  isFinalAnswer: boolean;
  error?: SerializedError;
  usage: Usage;
  timing: StepTiming;
}

/** The run's answer: from `final_answer`, or from the closing call after `maxSteps`. */
export interface FinalAnswerStep {
  type: "final-answer";
  output: unknown;
  source: "final_answer" | "max_steps";
  /** The closing call's reply (max_steps only). */
  modelOutput?: string;
  usage: Usage;
  timing: StepTiming;
}

export type MemoryStep = TaskStep | PlanningStep | ActionStep | FinalAnswerStep;

/** What `AgentMemory.toJSON()` returns and `AgentMemory.fromJSON()` / `run(..., { memory })` take. */
export interface SerializedMemory {
  version: 1;
  steps: MemoryStep[];
}
