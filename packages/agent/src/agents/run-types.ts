import type {
  AgentRunOptions,
  AgentRunResult,
  ApprovalHandler,
  GenerateOptions,
  Model,
  Tool,
} from "@atrium/spec";
import type { AgentMemory } from "./agent-memory.js";
import type { ImageInput } from "./load-images.js";
import type { LongTermMemoryOptions } from "./long-term-memory.js";
import type { MemoryStep, SerializedMemory } from "./memory-steps.js";

export interface FinalAnswerCheckContext {
  task: string;
  step: number;
  memory: AgentMemory;
}

/**
 * Looks at a final answer before the run accepts it. Return `true` (or nothing) to accept;
 * return a reason (string) or `false`, or throw, to reject: the model then sees the reason as an
 * observation and keeps working.
 */
export type FinalAnswerCheck = (
  answer: unknown,
  context: FinalAnswerCheckContext,
) => boolean | string | undefined | Promise<boolean | string | undefined>;

/** Called after every step (planning, action, final answer) is added to memory. */
export type StepCallback = (step: MemoryStep, memory: AgentMemory) => void | Promise<void>;

export interface AgentOptions {
  model: Model;
  tools?: readonly Tool[];
  /** The agent's name; required to use it as a managed agent (`asTool`). */
  name?: string;
  /** What the agent is good at; the manager model reads it when this agent is a tool. */
  description?: string;
  /** Action steps before the closing call that must answer (default `DEFAULT_AGENT_LOOP_LIMITS.maxSteps`, 20). */
  maxSteps?: number;
  /** Plan before step 1 and then every this many steps; off when undefined. */
  planningInterval?: number;
  /** Appended to the system prompt. */
  instructions?: string;
  /**
   * A memory that outlives runs: recalled (and its wake-up read) before each task, quoted into
   * the system prompt as data; the task and answer filed after each successful run.
   */
  longTermMemory?: LongTermMemoryOptions;
  stepCallbacks?: readonly StepCallback[];
  finalAnswerChecks?: readonly FinalAnswerCheck[];
  /** Images of older steps are dropped from requests after this many steps (default 2). */
  keepImagesForSteps?: number;
  /** Observations are cut head-and-tail at this many characters (default 20,000). */
  maxObservationChars?: number;
  /**
   * Answers tool calls that need approval (`Tool.needsApproval`) in every run that names no
   * `onApproval` of its own. Without one, such calls are refused.
   */
  onApproval?: ApprovalHandler;
  /** The longest one tool call waits for an approval (default `DEFAULT_APPROVAL_TIMEOUT_MS`, 10 minutes). */
  approvalTimeoutMs?: number;
  /** Passed to every model call. */
  modelOptions?: Pick<GenerateOptions, "temperature" | "maxOutputTokens">;
}

/** The spec's run options (signal, variables, onEvent) and what this package adds. */
export interface RunOptions extends AgentRunOptions {
  /** Paths, URLs or bytes of images sent with the task to a vision model. */
  images?: readonly ImageInput[];
  /** `false` keeps the memory and sandbox state of earlier runs and adds this task to them. */
  reset?: boolean;
  /** Continue from a saved memory (`memory.toJSON()`, or its JSON text). */
  memory?: SerializedMemory | string | AgentMemory;
  /** Overrides the agent's `maxSteps` for this run. */
  maxSteps?: number;
  /**
   * Call `model.stream` instead of `model.generate` and report the text as `model-delta` events
   * (what `stream()` always does), e.g. to show a reply as it is written.
   */
  streamModel?: boolean;
  /**
   * By default `run` rejects with the error when a run ends in `error` or `aborted`; `false`
   * resolves with a `RunResult` carrying that state and the serialised error instead.
   */
  throwOnError?: boolean;
}

/**
 * The spec's run result; `output` is the final answer (from `final_answer`, or the closing call
 * when `state` is `max_steps`), `usage` counts planning and closing calls too.
 */
export interface RunResult<Output = unknown> extends AgentRunResult<Output> {
  /** The memory steps this run added, in order (task, planning, action, final answer). */
  steps: MemoryStep[];
  /**
   * When `state` is "suspended": the run, saved and signed, for `agent.resume(continuation, {
   * decision })` in this process or another one.
   */
  continuation?: string;
}
