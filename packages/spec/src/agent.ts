import type { AgentEvent, RunState } from "./agent-event.js";
import type { ApprovalHandler } from "./approval.js";
import type { SerializedError } from "./errors.js";
import type { Usage } from "./model.js";

export interface AgentRunOptions {
  /** Aborting stops the run: `run` rejects with `AbortError`, a stream ends in state "aborted". */
  signal?: AbortSignal;
  /** Extra values for the task (defined in a code agent's sandbox, shown to a tool-calling one). */
  variables?: Record<string, unknown>;
  /** Receives every event of the run, as `stream` would yield them. */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Answers the run's tool calls that need approval (`Tool.needsApproval`); each waits (the
   * `approval-requested` event) until it answers. Without one, such calls are refused.
   */
  onApproval?: ApprovalHandler;
  /** The longest one call waits for its answer (default `DEFAULT_APPROVAL_TIMEOUT_MS`). */
  approvalTimeoutMs?: number;
}

export interface AgentRunResult<Output = unknown> {
  runId: string;
  /** The final answer. */
  output: Output;
  state: RunState;
  /** What the run did, in order; each implementation documents its step records. */
  steps: readonly unknown[];
  /** Action steps taken (the `steps` of the `run-end` event). */
  stepCount: number;
  /** Tokens over every model call of the run. */
  usage: Usage;
  timing: { startedAt: string; durationMs: number };
  /** Set when `state` is "error" or "aborted". */
  error?: SerializedError;
}

/**
 * A task in, a final answer out: what serving an agent over MCP and managed agents (an agent as
 * another agent's tool) consume.
 *
 * - `run` resolves when the run ends in "success" or "max_steps"; a run that ends in "error" or
 *   "aborted" rejects with its error (`AbortError`, code "ABORTED", for an abort).
 * - `stream` yields the run's `AgentEvent`s as they happen: exactly one `run-start` first and
 *   one `run-end` last; failures travel as `error` events followed by that `run-end` (state
 *   "error" or "aborted"), so a consumer never needs a `catch` for the run itself. Leaving the
 *   loop early aborts the run.
 * - Step numbers start at 1. One agent runs one task at a time.
 * - `close` frees what the agent holds (a sandbox, connections) and is idempotent. Unlike a
 *   `Closeable`, an agent is a reusable handle: a later run acquires what it needs again.
 */
export interface Agent {
  /** How a caller (an MCP client, a manager model) names the agent. */
  readonly name?: string | undefined;
  /** What the agent is good at, for a caller choosing whom to ask. */
  readonly description?: string | undefined;
  /** The most action steps one run takes, when bounded (progress reports use it as the total). */
  readonly maxSteps?: number | undefined;
  run(task: string, options?: AgentRunOptions): Promise<AgentRunResult>;
  stream(task: string, options?: AgentRunOptions): AsyncIterable<AgentEvent>;
  close(): Promise<void>;
}
