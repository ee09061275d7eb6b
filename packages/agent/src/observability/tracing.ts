import { errorMessage } from "@atrium/spec";
import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";

/** The instrumentation scope of every span @atrium/agent records. */
export const TRACER_NAME = "@atrium/agent";

/** Span names; stable, so dashboards and tests can rely on them. */
export const SPAN = {
  run: "atrium.agent.run",
  step: "atrium.agent.step",
  planning: "atrium.agent.planning",
  model: "atrium.model.call",
  tool: "atrium.tool.call",
} as const;

/** Attribute keys: OpenTelemetry's GenAI conventions where one exists, `atrium.*` otherwise. */
export const ATTR = {
  agentName: "gen_ai.agent.name",
  runId: "atrium.run.id",
  runState: "atrium.run.state",
  runSteps: "atrium.run.steps",
  step: "atrium.step.number",
  stepFinal: "atrium.step.final_answer",
  model: "gen_ai.request.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReason: "gen_ai.response.finish_reasons",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
} as const;

// Looked up on every span rather than once: a provider registered after import must still win.
function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/**
 * Starts a span, a child of `parent`, that the caller must end: for work that cannot be one
 * callback, such as the agent loop, which is a generator that yields between its steps.
 */
export function startSpan(
  name: string,
  attributes: Attributes,
  parent: Context | undefined,
): { span: Span; spanContext: Context } {
  const parentContext = parent ?? context.active();
  const span = tracer().startSpan(name, { attributes }, parentContext);
  return { span, spanContext: trace.setSpan(parentContext, span) };
}

/**
 * Runs `body` inside a span that is a child of `parent`. Parents are passed explicitly rather
 * than through the active context, so nesting is right without an async context manager. The
 * span records the exception and an error status when `body` throws.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  parent: Context | undefined,
  body: (span: Span, spanContext: Context) => Promise<T>,
): Promise<T> {
  const { span, spanContext } = startSpan(name, attributes, parent);
  try {
    return await body(span, spanContext);
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: errorMessage(error),
    });
    throw error;
  } finally {
    span.end();
  }
}
