import type { AgentEvent, Tool, ToolContext } from "@atrium/spec";
import { errorMessage, isRichToolResult, ValidationError } from "@atrium/spec";
import type { Context } from "@opentelemetry/api";
import { ATTR, inSpan, SPAN } from "../observability/tracing.js";

/** What a tool call needs to know about the run it happens in; read at call time. */
export interface ToolScope {
  emit(event: AgentEvent): void;
  step: number;
  signal: AbortSignal;
  spanContext: Context | undefined;
}

let callCounter = 0;

/**
 * Wraps a tool for one agent: validates the input (a failure throws a `ValidationError` naming
 * the field, which the model sees), emits tool-call / tool-progress / tool-result events,
 * records a span and ties the tool's signal to the run's. The wrapper has no `validate` of its
 * own, so an executor does not validate twice.
 */
export function instrumentTool(tool: Tool, scope: () => ToolScope): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    // Whoever calls the wrapper (an executor, the tool-calling loop) asks for the approval.
    ...(tool.needsApproval === undefined ? {} : { needsApproval: checkedNeedsApproval(tool) }),
    async execute(input: unknown, context?: ToolContext) {
      const run = scope();
      const id = context?.toolCallId ?? `call_${++callCounter}`;
      const { step, emit } = run;
      emit({ type: "tool-call", step, id, name: tool.name, input });
      const attributes = { [ATTR.toolName]: tool.name, [ATTR.toolCallId]: id };
      return inSpan(SPAN.tool, attributes, run.spanContext, async () => {
        try {
          let value = input;
          if (tool.validate) {
            const checked = await tool.validate(input);
            if (!checked.ok) throw new ValidationError(`invalid input for tool ${tool.name}`, checked.issues);
            value = checked.value;
          }
          const signal = context?.signal ? AbortSignal.any([context.signal, run.signal]) : run.signal;
          const output = await tool.execute(value, {
            signal,
            toolCallId: id,
            onProgress: (progress) => {
              emit({ type: "tool-progress", step, id, name: tool.name, progress });
              context?.onProgress?.(progress);
            },
          });
          emit({
            type: "tool-result",
            step,
            id,
            name: tool.name,
            output: isRichToolResult(output) ? output.value : output,
          });
          return output;
        } catch (error) {
          const message = errorMessage(error);
          emit({ type: "tool-result", step, id, name: tool.name, output: undefined, error: message });
          throw error;
        }
      });
    },
  };
}

/**
 * The tool's `needsApproval`, asked with its validated input as it would be without the wrapper
 * (which validates only in `execute`). Input that fails validation needs no approval: `execute`
 * refuses it anyway, before the tool runs.
 */
function checkedNeedsApproval(tool: Tool): NonNullable<Tool["needsApproval"]> {
  const needs = tool.needsApproval!;
  if (typeof needs !== "function" || !tool.validate) return needs;
  return async (input, context) => {
    const checked = await tool.validate!(input);
    return checked.ok ? needs(checked.value, context) : false;
  };
}
