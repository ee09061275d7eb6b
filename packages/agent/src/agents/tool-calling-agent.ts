import { askApproval, NO_APPROVER_REASON, notApprovedMessage, toolNeedsApproval } from "@atrium/kit";
import {
  AtriumError,
  errorMessage,
  type ImagePart,
  isRichToolResult,
  ParseError,
  rethrowIfFatal,
  serializeError,
  type Tool,
  type ToolCall,
  type ToolSpec,
} from "@atrium/spec";
import { DEFAULT_AGENT_LOOP_LIMITS } from "../limits.js";
import { toolCallingSystemPrompt } from "../prompts/tool-calling-prompt.js";
import type { ActionStep, ToolCallRecord } from "./memory-steps.js";
import { MultiStepAgent, type RunContext } from "./multi-step-agent.js";
import { formatValue } from "./observation.js";
import { keepStepImages } from "./step-images.js";
import { truncateMiddle } from "./truncate.js";

const FINAL_ANSWER: ToolSpec = {
  name: "final_answer",
  description: "Ends the task with the answer. Call it alone, once you have the complete answer.",
  inputSchema: {
    type: "object",
    properties: { answer: { description: "The complete answer to the task." } },
    required: ["answer"],
  },
};

interface CallOutcome {
  record: ToolCallRecord;
  images: ImagePart[];
}

/**
 * An agent that acts through the provider's native tool calls instead of code. Several calls in
 * one reply run in parallel and their results come back in call order; `final_answer` must be
 * the only call of its step.
 */
export class ToolCallingAgent extends MultiStepAgent {
  #systemPrompt: string | undefined;

  protected override fork(): ToolCallingAgent {
    return new ToolCallingAgent(this.options);
  }

  protected override systemPrompt(): string {
    this.#systemPrompt ??= toolCallingSystemPrompt({
      tools: this.tools,
      ...(this.instructions ? { instructions: this.instructions } : {}),
    });
    return this.#systemPrompt;
  }

  protected override async actionStep(run: RunContext): Promise<ActionStep> {
    const startedAt = Date.now();
    const started = performance.now();
    const specs: ToolSpec[] = [
      ...this.tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
      FINAL_ANSWER,
    ];
    const response = await this.callModel(run, this.messagesFor(run.system), {
      tools: specs,
      toolChoice: "required",
    });
    const calls = distinctIds(response.message.toolCalls ?? []);
    const base = {
      type: "action" as const,
      step: run.step,
      modelOutput: response.message.content,
      usage: response.usage,
    };
    const timing = () => ({ startedAt, durationMs: performance.now() - started });

    const refusal = refuse(calls);
    if (refusal) {
      const records = calls.map((call) => record(call, `Error: ${refusal.message}`, true));
      return {
        ...base,
        ...(records.length ? { toolCalls: records } : {}),
        observation: `Error: ${refusal.message}`,
        isFinalAnswer: false,
        error: serializeError(refusal),
        timing: timing(),
      };
    }

    const [first] = calls;
    if (first && first.name === FINAL_ANSWER.name) {
      const input = first.input as { answer?: unknown } | undefined;
      if (typeof input !== "object" || input === null || !("answer" in input)) {
        const error = new ParseError('final_answer needs an object argument { "answer": ... }');
        return {
          ...base,
          toolCalls: [record(first, `Error: ${error.message}`, true)],
          observation: `Error: ${error.message}`,
          isFinalAnswer: false,
          error: serializeError(error),
          timing: timing(),
        };
      }
      const observation = truncateMiddle(
        `final_answer was called with:\n${formatValue(input.answer)}`,
        this.maxObservationChars,
      );
      return {
        ...base,
        toolCalls: [record(first, observation, false)],
        observation,
        output: input.answer,
        isFinalAnswer: true,
        timing: timing(),
      };
    }

    const outcomes = await Promise.all(calls.map((call) => this.#call(run, call)));
    const kept = keepStepImages(outcomes.flatMap((outcome) => outcome.images));
    const failures = outcomes.filter((outcome) => outcome.record.isError);
    return {
      ...base,
      toolCalls: outcomes.map((outcome) => outcome.record),
      // Each result is cut on its own, and so is their sum: 16 calls must not make 16 times the limit.
      observation: [
        truncateMiddle(
          outcomes.map(({ record }) => `${record.name} (${record.id}):\n${record.observation}`).join("\n\n"),
          this.maxObservationChars,
        ),
        ...(kept.note ? [kept.note] : []),
      ].join("\n"),
      ...(kept.images.length ? { images: kept.images } : {}),
      isFinalAnswer: false,
      ...(failures.length
        ? {
            error: serializeError(
              new AtriumError(
                "TOOL",
                failures.map(({ record }) => `${record.name}: ${record.observation}`).join("\n"),
              ),
            ),
          }
        : {}),
      timing: timing(),
    };
  }

  async #call(run: RunContext, call: ToolCall): Promise<CallOutcome> {
    const target = this.instrumentedTools.find((candidate) => candidate.name === call.name);
    if (!target) {
      const known = this.tools.map((each) => each.name).join(", ");
      return {
        record: record(call, `Error: unknown tool ${call.name}; the tools are: ${known}, final_answer`, true),
        images: [],
      };
    }
    try {
      const refusal = await approvalRefusal(run, target, call);
      if (refusal) return { record: record(call, `Error: ${refusal}`, true), images: [] };
      const output = await target.execute(call.input, { signal: run.signal, toolCallId: call.id });
      const value = isRichToolResult(output) ? output.value : output;
      const images = isRichToolResult(output) ? (output.images ?? []) : [];
      return {
        record: record(call, truncateMiddle(formatValue(value), this.maxObservationChars), false),
        images,
      };
    } catch (error) {
      rethrowIfFatal(error);
      const message = errorMessage(error);
      return {
        record: record(call, truncateMiddle(`Error: ${message}`, this.maxObservationChars), true),
        images: [],
      };
    }
  }
}

/**
 * The calls with ids that differ: a model (steered by text it read) can give two calls one id,
 * and an approval names its call by id, so a person could approve one and run the other. A
 * repeated id gets a suffix (`#2`, `#3` ...).
 */
function distinctIds(calls: readonly ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    let id = call.id;
    for (let n = 2; seen.has(id); n++) id = `${call.id}#${n}`;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/** The refusal of a call that needs approval and did not get it; undefined: it may run. */
async function approvalRefusal(run: RunContext, tool: Tool, call: ToolCall): Promise<string | undefined> {
  if (!(await toolNeedsApproval(tool, call.input, call.id))) return undefined;
  const decision = run.approve
    ? await askApproval(
        run.approve,
        { toolCallId: call.id, toolName: tool.name, input: call.input },
        { timeoutMs: run.approvalTimeoutMs, signal: run.signal },
      )
    : { approved: false as const, reason: NO_APPROVER_REASON };
  if (decision.approved) return undefined;
  return notApprovedMessage(tool.name, decision.reason);
}

function record(call: ToolCall, observation: string, isError: boolean): ToolCallRecord {
  return { id: call.id, name: call.name, input: call.input, observation, isError };
}

/** Why a reply's tool calls cannot run as asked, if they cannot. */
function refuse(calls: readonly ToolCall[]): ParseError | undefined {
  if (calls.length === 0) {
    return new ParseError(
      "you called no tool. Call one or more tools, or final_answer alone with the answer.",
    );
  }
  if (calls.length > DEFAULT_AGENT_LOOP_LIMITS.maxToolCallsPerStep) {
    return new ParseError(
      `you made ${calls.length} tool calls in one step; at most ${DEFAULT_AGENT_LOOP_LIMITS.maxToolCallsPerStep} are allowed. Make fewer calls per step.`,
    );
  }
  if (calls.length > 1 && calls.some((call) => call.name === FINAL_ANSWER.name)) {
    return new ParseError(
      "final_answer must be the only tool call of its step; none of these calls ran. Call the other tools first, then final_answer alone.",
    );
  }
  return undefined;
}
