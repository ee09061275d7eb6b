import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActionStep, CodeAgent, SPAN } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { add, js, track } from "./support/agents.js";

const exporter = new InMemorySpanExporter();
beforeAll(() => {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterAll(() => trace.disable());

describe("OpenTelemetry spans", () => {
  it("records run, step, model and tool spans, nested, with token usage", async () => {
    const model = new ScriptedModel([
      { content: js("await add({ a: 1, b: 2 })"), usage: { inputTokens: 100, outputTokens: 10 } },
      { content: js("final_answer(3)"), usage: { inputTokens: 120, outputTokens: 8 } },
    ]);
    const agent = track(new CodeAgent({ model, tools: [add], name: "adder" }));
    const result = await agent.run("Add.");
    const spans = exporter.getFinishedSpans();

    expect(spans.map((span) => span.name)).toEqual([
      SPAN.model,
      SPAN.tool,
      SPAN.step,
      SPAN.model,
      SPAN.step,
      SPAN.run,
    ]);
    const [model1, tool, step1, model2, step2, run] = spans;
    const parent = (span: (typeof spans)[number]) => span.parentSpanContext?.spanId;
    expect(parent(run!)).toBeUndefined();
    expect([parent(step1!), parent(step2!)]).toEqual([run!.spanContext().spanId, run!.spanContext().spanId]);
    expect([parent(model1!), parent(tool!)]).toEqual([
      step1!.spanContext().spanId,
      step1!.spanContext().spanId,
    ]);
    expect(parent(model2!)).toBe(step2!.spanContext().spanId);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);

    expect(model1!.attributes).toEqual({
      "gen_ai.request.model": "scripted",
      "atrium.step.number": 1,
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 10,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    expect(tool!.attributes).toEqual({
      "gen_ai.tool.name": "add",
      "gen_ai.tool.call.id": expect.any(String),
    });
    expect(step2!.attributes).toEqual({
      "atrium.step.number": 2,
      "atrium.step.final_answer": true,
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 8,
    });
    expect(run!.attributes).toEqual({
      "atrium.run.id": result.runId,
      "gen_ai.agent.name": "adder",
      "atrium.run.state": "success",
      "atrium.run.steps": 2,
      "gen_ai.usage.input_tokens": 220,
      "gen_ai.usage.output_tokens": 18,
    });
    expect((result.steps[1] as ActionStep).usage).toEqual({ inputTokens: 100, outputTokens: 10 });
  });
});
