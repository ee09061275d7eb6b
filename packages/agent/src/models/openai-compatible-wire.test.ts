/**
 * The AI SDK adapter over the wire: `resolveModel("openai-compatible:...")` → `@ai-sdk/openai-compatible`
 * → HTTP → a loopback server replaying OpenAI chat-completions responses, and back.
 */
import { readFileSync } from "node:fs";
import { AbortError, type Message, ModelError, type ModelStreamPart, type ToolSpec } from "@atrium/spec";
import { afterEach, describe, expect, it } from "vitest";
import {
  fixturePath,
  type ReplayResponse,
  type ReplayServer,
  startReplayServer,
} from "../../test/fixtures/models/replay-server.js";
import { ProviderError } from "./model-error.js";
import { type ResolveModelOptions, resolveModel } from "./resolve-model.js";
import type { RetryEvent } from "./retry.js";

const PIXEL_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP438AAAAQBAYDFKhhdAAAAAElFTkSuQmCC";
const PIXEL_DATA_URL = `data:image/png;base64,${PIXEL_BASE64}`;

const question: Message[] = [
  { role: "system", content: "Answer in one sentence." },
  { role: "user", content: "What is the capital of France?" },
];

const weatherTool: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
    required: ["city"],
    additionalProperties: false,
  },
};

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(responses: ReplayResponse[], options: ResolveModelOptions = {}) {
  server = await startReplayServer(responses);
  const retries: RetryEvent[] = [];
  const model = resolveModel(
    `openai-compatible:${server.baseURL}#gpt-4o-mini`,
    { OPENAI_COMPATIBLE_API_KEY: "sk-test-key" },
    { retry: { baseDelayMs: 1, maxDelayMs: 5, onRetry: (event) => retries.push(event) }, ...options },
  );
  return { server, model, retries };
}

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe("AI SDK adapter over the wire (openai-compatible)", () => {
  it("returns a plain completion with exact text, usage and finish reason, sending every option", async () => {
    const { server, model } = await serve([{ fixture: "chat-completion.json" }]);
    const response = await model.generate(question, {
      temperature: 0,
      maxOutputTokens: 64,
      stopSequences: ["<end_code>", "Observation:"],
    });
    expect(model.id).toBe(`openai-compatible:${server.baseURL}#gpt-4o-mini`);
    expect(response).toEqual({
      message: { role: "assistant", content: "The capital of France is Paris." },
      usage: { inputTokens: 24, outputTokens: 8 },
      finishReason: "stop",
    });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-test-key");
    expect(request?.body).toEqual({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Answer in one sentence." },
        { role: "user", content: "What is the capital of France?" },
      ],
      temperature: 0,
      max_tokens: 64,
      stop: ["<end_code>", "Observation:"],
    });
  });

  it("streams SSE deltas exactly, then one finish equal to the generated response", async () => {
    const { server, model } = await serve([
      { fixture: "chat-completion-stream.sse" },
      { fixture: "chat-completion.json" },
    ]);
    const parts = await collect(model.stream(question, { stopSequences: ["\n\n"] }));
    const deltas = parts.flatMap((part) => (part.type === "text-delta" ? [part.text] : []));
    expect(deltas).toEqual(["The", " capital", " of", " France", " is", " Paris", "."]);
    expect(parts.filter((part) => part.type === "finish")).toHaveLength(1);
    expect(parts.at(-1)).toEqual({ type: "finish", response: await model.generate(question) });
    expect(server.requests[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      stop: ["\n\n"],
    });
  });

  it("returns native tool calls with ids, names and parsed input, sending tools as JSON Schema without $schema", async () => {
    const { server, model } = await serve([{ fixture: "chat-completion-tool-calls.json" }]);
    const response = await model.generate([{ role: "user", content: "Weather in Paris and Lyon?" }], {
      tools: [weatherTool],
      toolChoice: "required",
    });
    expect(response).toEqual({
      message: {
        role: "assistant",
        content: "",
        toolCalls: [
          {
            id: "call_Yk3mT9qLw2vRb8NcX4pZs1Ja",
            name: "get_weather",
            input: { city: "Paris", unit: "celsius" },
          },
          {
            id: "call_Hd7fP2sKv9xQm4LtW1nBc6Ue",
            name: "get_weather",
            input: { city: "Lyon", unit: "celsius" },
          },
        ],
      },
      usage: { inputTokens: 81, outputTokens: 52 },
      finishReason: "tool-calls",
    });
    expect(server.requests[0]?.body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Current weather for a city",
          parameters: {
            type: "object",
            properties: {
              city: { type: "string" },
              unit: { type: "string", enum: ["celsius", "fahrenheit"] },
            },
            required: ["city"],
            additionalProperties: false,
          },
        },
      },
    ]);
    expect(server.requests[0]?.body.tool_choice).toBe("required");
  });

  it("passes malformed tool calls on for the agent to answer: raw arguments text, unknown tool names", async () => {
    const { model } = await serve([{ fixture: "chat-completion-bad-tool-calls.json" }]);
    const response = await model.generate([{ role: "user", content: "Weather in Paris?" }], {
      tools: [weatherTool],
    });
    expect(response.message.toolCalls).toEqual([
      { id: "call_Yk3mT9qLw2vRb8NcX4pZs1Ja", name: "get_weather", input: '{"city": "Paris", "unit": "cel' },
      { id: "call_Rt5gH8jKw3mNq1PzV6bXc2Df", name: "launch_rockets", input: { count: 3 } },
    ]);
    expect(response.finishReason).toBe("tool-calls");
  });

  it("streams the same malformed tool calls, then a finish equal to generate's response", async () => {
    const { model } = await serve([
      { fixture: "chat-completion-bad-tool-calls-stream.sse" },
      { fixture: "chat-completion-bad-tool-calls.json" },
    ]);
    const parts = await collect(
      model.stream([{ role: "user", content: "Weather?" }], { tools: [weatherTool] }),
    );
    const generated = await model.generate([{ role: "user", content: "Weather?" }], { tools: [weatherTool] });
    expect(parts).toEqual([
      ...(generated.message.toolCalls ?? []).map((toolCall) => ({ type: "tool-call", toolCall })),
      { type: "finish", response: generated },
    ]);
  });

  it("streams a tool call whose arguments arrive in pieces", async () => {
    const { model } = await serve([{ fixture: "chat-completion-tool-calls-stream.sse" }]);
    const parts = await collect(
      model.stream([{ role: "user", content: "Weather in Paris?" }], { tools: [weatherTool] }),
    );
    const toolCall = {
      id: "call_Yk3mT9qLw2vRb8NcX4pZs1Ja",
      name: "get_weather",
      input: { city: "Paris", unit: "celsius" },
    };
    expect(parts).toEqual([
      { type: "tool-call", toolCall },
      {
        type: "finish",
        response: {
          message: { role: "assistant", content: "", toolCalls: [toolCall] },
          usage: { inputTokens: 81, outputTokens: 18 },
          finishReason: "tool-calls",
        },
      },
    ]);
  });

  it("sends image parts (bytes, base64, data URL) as image_url data URLs", async () => {
    const { server, model } = await serve([{ fixture: "chat-completion.json" }]);
    const pixel = new Uint8Array(readFileSync(fixturePath("pixel.png")));
    await model.generate([
      {
        role: "user",
        content: [
          { type: "text", text: "Describe these." },
          { type: "image", image: pixel, mediaType: "image/png" },
          { type: "image", image: PIXEL_BASE64, mediaType: "image/png" },
          { type: "image", image: PIXEL_DATA_URL },
        ],
      },
    ]);
    const imagePart = { type: "image_url", image_url: { url: PIXEL_DATA_URL } };
    expect(server.requests[0]?.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Describe these." }, imagePart, imagePart, imagePart] },
    ]);
  });

  it("replays assistant tool calls and tool results, images from tools following in a user message", async () => {
    const { server, model } = await serve([{ fixture: "chat-completion.json" }]);
    await model.generate([
      { role: "user", content: "Chart the weather." },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call_1", name: "get_weather", input: { city: "Paris" } },
          { id: "call_2", name: "chart", input: { city: "Paris" } },
        ],
      },
      {
        role: "tool",
        toolCallId: "call_1",
        toolName: "get_weather",
        content: [{ type: "text", text: "18°C" }],
      },
      {
        role: "tool",
        toolCallId: "call_2",
        toolName: "chart",
        content: [
          { type: "text", text: "chart drawn" },
          { type: "image", image: PIXEL_BASE64, mediaType: "image/png" },
        ],
      },
    ]);
    expect(server.requests[0]?.body.messages).toEqual([
      { role: "user", content: "Chart the weather." },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
          { id: "call_2", type: "function", function: { name: "chart", arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "18°C" },
      {
        role: "tool",
        tool_call_id: "call_2",
        content: "chart drawn\n(1 image attached in the next message)",
      },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the tool call chart (call_2):" },
          { type: "image_url", image_url: { url: PIXEL_DATA_URL } },
        ],
      },
    ]);
  });

  it("retries a 429 after the Retry-After the server sent", async () => {
    const { server, model, retries } = await serve([
      { fixture: "error-429.json", status: 429, headers: { "retry-after": "1" } },
      { fixture: "chat-completion.json" },
    ]);
    const started = performance.now();
    const response = await model.generate(question);
    const elapsed = performance.now() - started;
    expect(response.message.content).toBe("The capital of France is Paris.");
    expect(server.requests).toHaveLength(2);
    expect(
      retries.map(({ attempt, delayMs, error }) => ({
        attempt,
        delayMs,
        status: (error as ModelError).status,
      })),
    ).toEqual([{ attempt: 1, delayMs: 1000, status: 429 }]);
    expect(elapsed).toBeGreaterThanOrEqual(990);
  });

  it("caps a long Retry-After at maxRetryAfterMs", async () => {
    const retries: RetryEvent[] = [];
    const { server, model } = await serve(
      [
        { fixture: "error-429.json", status: 429, headers: { "retry-after": "120" } },
        { fixture: "chat-completion.json" },
      ],
      { retry: { maxRetryAfterMs: 20, onRetry: (event) => retries.push(event) } },
    );
    await model.generate(question);
    expect(server.requests).toHaveLength(2);
    expect(retries.map((event) => event.delayMs)).toEqual([20]);
  });

  it("retries a 500 and succeeds, for generate and for a stream that failed before its first delta", async () => {
    const { server, model, retries } = await serve([
      { fixture: "error-500.json", status: 500 },
      { fixture: "chat-completion.json" },
      { fixture: "error-500.json", status: 503 },
      { fixture: "chat-completion-stream.sse" },
    ]);
    expect((await model.generate(question)).message.content).toBe("The capital of France is Paris.");
    const parts = await collect(model.stream(question));
    expect(parts.at(-1)).toMatchObject({
      type: "finish",
      response: { message: { content: "The capital of France is Paris." } },
    });
    expect(server.requests).toHaveLength(4);
    expect(retries.map((event) => (event.error as ModelError).status)).toEqual([500, 503]);
  });

  it("does not retry a 400 and explains it as a ModelError", async () => {
    const { server, model, retries } = await serve([
      { fixture: "error-400.json", status: 400 },
      { fixture: "chat-completion.json" },
    ]);
    const error = await model.generate(question).catch((e: unknown) => e);
    expect(server.requests).toHaveLength(1);
    expect(retries).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: "MODEL", status: 400, isRetryable: false });
    expect((error as Error).message).toBe(
      `openai-compatible:${server.baseURL}#gpt-4o-mini answered HTTP 400: Invalid 'messages[1].content[1].image_url.url': Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got unsupported MIME type 'image/tiff'.; the request was rejected; fix the request (messages, tools, options) before retrying`,
    );
  });

  it("names the API key variable on a 401, without retrying", async () => {
    const { server, model } = await serve([{ fixture: "error-401.json", status: 401 }]);
    const error = await model.generate(question).catch((e: unknown) => e);
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ status: 401, isRetryable: false });
    expect((error as Error).message).toMatch(/the API key was rejected: check OPENAI_COMPATIBLE_API_KEY$/);
  });

  it("gives up after maxAttempts retryable failures, saying how many", async () => {
    const { server, model } = await serve(
      [
        { fixture: "error-500.json", status: 500 },
        { fixture: "error-500.json", status: 502 },
        { fixture: "error-500.json", status: 500 },
      ],
      { retry: { maxAttempts: 3, baseDelayMs: 1 } },
    );
    const error = await model.generate(question).catch((e: unknown) => e);
    expect(server.requests).toHaveLength(3);
    expect(error).toMatchObject({ status: 500, isRetryable: true });
    expect((error as Error).message).toMatch(
      /HTTP 500: The server had an error .* \(gave up after 3 attempts\)$/,
    );
  });

  it("aborts mid-request at once, without retrying", async () => {
    const { server, model } = await serve([{ hang: true }, { fixture: "chat-completion.json" }]);
    const controller = new AbortController();
    const pending = model.generate(question, { signal: controller.signal }).catch((e: unknown) => e);
    await server.nextRequest();
    const started = performance.now();
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(AbortError);
    expect(performance.now() - started).toBeLessThan(500);
    expect(server.requests).toHaveLength(1);
  });

  it("aborts mid-stream at once, after the first deltas", async () => {
    const { server, model } = await serve([{ fixture: "chat-completion-stream.sse", stallAfterEvents: 3 }]);
    const controller = new AbortController();
    const seen: string[] = [];
    const run = async () => {
      for await (const part of model.stream(question, { signal: controller.signal })) {
        if (part.type !== "text-delta") continue;
        seen.push(part.text);
        if (seen.length === 2) setTimeout(() => controller.abort(), 20);
      }
    };
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(seen).toEqual(["The", " capital"]);
    expect(server.requests).toHaveLength(1);
  });

  it("ends the HTTP request when the consumer stops reading early", async () => {
    const { server, model } = await serve([{ fixture: "chat-completion-stream.sse", stallAfterEvents: 3 }]);
    for await (const part of model.stream(question)) {
      expect(part).toEqual({ type: "text-delta", text: "The" });
      break;
    }
    const stillOpen = new Promise((resolve) => setTimeout(resolve, 2_000, "still open"));
    expect(await Promise.race([server.requests[0]?.ended, stillOpen])).toBe("abandoned");
  });

  it("ends a stream that goes silent after chunkTimeoutMs, without retrying once deltas were seen", async () => {
    const { server, model } = await serve(
      [
        { fixture: "chat-completion-stream.sse", stallAfterEvents: 3 },
        { fixture: "chat-completion-stream.sse" },
      ],
      { chunkTimeoutMs: 400 },
    );
    const seen: string[] = [];
    const run = async () => {
      for await (const part of model.stream(question)) if (part.type === "text-delta") seen.push(part.text);
    };
    const error = await run().catch((e: unknown) => e);
    expect(seen).toEqual(["The", " capital"]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ isRetryable: true, status: undefined });
    expect((error as Error).message).toBe(
      `openai-compatible:${server.baseURL}#gpt-4o-mini did not answer in time (Chunk timeout of 400ms exceeded); if the model is just slow, raise timeoutMs / chunkTimeoutMs`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("times out a silent server and retries the timeout", async () => {
    const { server, model } = await serve([{ hang: true }, { fixture: "chat-completion.json" }], {
      timeoutMs: 500,
      retry: { baseDelayMs: 1 },
    });
    expect((await model.generate(question)).message.content).toBe("The capital of France is Paris.");
    expect(server.requests).toHaveLength(2);
  });

  it("does not retry a stream that broke after its first delta", async () => {
    const { server, model } = await serve([
      { fixture: "chat-completion-stream.sse", cutAfterEvents: 3 },
      { fixture: "chat-completion-stream.sse" },
    ]);
    const seen: string[] = [];
    const run = async () => {
      for await (const part of model.stream(question)) if (part.type === "text-delta") seen.push(part.text);
    };
    const error = await run().catch((e: unknown) => e);
    expect(seen).toEqual(["The", " capital"]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(server.requests).toHaveLength(1);
  });

  it("retries when nothing listens on the port, then explains the network error", async () => {
    const { server, model } = await serve([], { retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const url = server.baseURL;
    await server.close();
    const error = await model.generate(question).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "MODEL", isRetryable: true, status: undefined });
    expect((error as Error).message).toContain(
      `could not reach ${url}/chat/completions (Cannot connect to API: connect ECONNREFUSED`,
    );
    expect((error as Error).message).toMatch(
      /check that the server is running and the base URL is right \(gave up after 2 attempts\)$/,
    );
  });
});
