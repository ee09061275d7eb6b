import type { SerializedError } from "./errors.js";
import type { ImagePart } from "./messages.js";
import type { Usage } from "./model.js";
import type { ToolProgress } from "./tool.js";

/**
 * How a run ended. "suspended": a tool call waits for an approval and the run was saved to be
 * resumed later (the agent's result carries the continuation).
 */
export type RunState = "success" | "max_steps" | "error" | "aborted" | "suspended";

/**
 * What an agent run emits while streaming, a union keyed on `type`. Errors travel as events;
 * every run ends with exactly one `run-end`. `step` numbers start at 1.
 */
export type AgentEvent =
  /** `images`: the images sent with the task, when there are any. */
  | { type: "run-start"; runId: string; task: string; images?: ImagePart[] }
  | { type: "step-start"; step: number }
  | { type: "planning"; step: number; plan: string }
  | { type: "model-delta"; step: number; text: string }
  | { type: "model-output"; step: number; text: string; usage: Usage }
  | { type: "code"; step: number; language: string; code: string }
  | { type: "tool-call"; step: number; id: string; name: string; input: unknown }
  | { type: "tool-progress"; step: number; id: string; name: string; progress: ToolProgress }
  | { type: "tool-result"; step: number; id: string; name: string; output: unknown; error?: string }
  /** A tool call waits for a person's answer (`Tool.needsApproval`); nothing else of the call runs yet. */
  | { type: "approval-requested"; step: number; id: string; name: string; input: unknown }
  /** The answer to an `approval-requested` (`reason`: why it was refused, when it was). */
  | { type: "approval-resolved"; step: number; id: string; name: string; approved: boolean; reason?: string }
  | { type: "observation"; step: number; text: string; images?: ImagePart[] }
  | { type: "step-end"; step: number; durationMs: number; usage: Usage; error?: SerializedError }
  | { type: "final-answer"; step: number; output: unknown }
  | { type: "error"; step?: number; error: SerializedError }
  /** Long-term memory read before the first step (`error`: recall failed, the run went on without it). */
  | {
      type: "memory-recalled";
      memories: { id: string; content: string }[];
      durationMs: number;
      error?: string;
    }
  /** The run's task and answer filed in long-term memory after it succeeded. */
  | { type: "memory-filed"; ids: string[]; durationMs: number; error?: string }
  | { type: "run-end"; state: RunState; output: unknown; usage: Usage; durationMs: number; steps: number };

export type AgentEventType = AgentEvent["type"];

export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
