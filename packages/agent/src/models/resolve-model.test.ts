import { ConfigError, type Message, ModelError } from "@atrium/spec";
import { afterEach, describe, expect, it } from "vitest";
import {
  fixturePath,
  type ReplayServer,
  startReplayServer,
} from "../../test/fixtures/models/replay-server.js";
import { MODEL_STRING_FORMS, resolveModel } from "./resolve-model.js";

const PIXEL_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP438AAAAQBAYDFKhhdAAAAAElFTkSuQmCC";
const task: Message[] = [{ role: "user", content: "What is 6 times 7?" }];

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("resolveModel", () => {
  it("builds each provider with the model string as id", () => {
    const env = { OPENAI_API_KEY: "sk-o", ANTHROPIC_API_KEY: "sk-a" };
    expect(resolveModel("openai:gpt-4o-mini", env).id).toBe("openai:gpt-4o-mini");
    expect(resolveModel("anthropic:claude-sonnet-4-5", env).id).toBe("anthropic:claude-sonnet-4-5");
    expect(resolveModel("ollama:llama3.2", {}).id).toBe("ollama:llama3.2");
    expect(resolveModel("openai-compatible:http://127.0.0.1:8000/v1#qwen2.5-7b", {}).id).toBe(
      "openai-compatible:http://127.0.0.1:8000/v1#qwen2.5-7b",
    );
    expect(resolveModel(`scripted:${fixturePath("scripted-replies.json")}`, {}).id).toBe(
      `scripted:${fixturePath("scripted-replies.json")}`,
    );
  });

  it("names the environment variable to set when a key is missing", () => {
    expect(configError(() => resolveModel("openai:gpt-4o-mini", {})).message).toBe(
      "openai:gpt-4o-mini needs an API key: set the environment variable OPENAI_API_KEY",
    );
    expect(
      configError(() => resolveModel("anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "  " })).message,
    ).toBe("anthropic:claude-sonnet-4-5 needs an API key: set the environment variable ANTHROPIC_API_KEY");
  });

  it.each(["gpt-4o-mini", "openai:", "azure:gpt-4o", "", "OpenAI:gpt-4o"])(
    "lists the accepted forms for %j",
    (modelString) => {
      expect(configError(() => resolveModel(modelString, {})).message).toBe(
        `Unknown model string ${JSON.stringify(modelString)}; use one of:\n  ${MODEL_STRING_FORMS}`,
      );
    },
  );

  it("explains malformed openai-compatible strings and base URLs", () => {
    expect(configError(() => resolveModel("openai-compatible:http://127.0.0.1:8000/v1", {})).message).toBe(
      'Model string "openai-compatible:http://127.0.0.1:8000/v1" has no model name: write openai-compatible:<baseURL>#<model>, e.g. openai-compatible:http://127.0.0.1:8000/v1#qwen2.5-7b',
    );
    expect(configError(() => resolveModel("openai-compatible:localhost:8000#m", {})).message).toBe(
      'openai-compatible:localhost:8000#m: the base URL "localhost:8000" is not an http(s) URL; give one like http://127.0.0.1:8000/v1',
    );
    expect(
      configError(() =>
        resolveModel("openai:gpt-4o", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "api.openai.com" }),
      ).message,
    ).toBe(
      'openai:gpt-4o: the base URL "api.openai.com" (from OPENAI_BASE_URL) is not an http(s) URL; give one like http://127.0.0.1:8000/v1',
    );
    expect(configError(() => resolveModel("ollama:llama3.2", { OLLAMA_BASE_URL: "11434" })).message).toBe(
      'ollama:llama3.2: the base URL "11434" (from OLLAMA_BASE_URL) is not an http(s) URL; give one like http://127.0.0.1:8000/v1',
    );
  });

  it("talks to OpenAI chat completions at OPENAI_BASE_URL, passing image URLs through", async () => {
    server = await startReplayServer([{ fixture: "chat-completion.json" }]);
    const model = resolveModel(
      "openai:gpt-4o-mini",
      { OPENAI_API_KEY: "sk-openai-test", OPENAI_BASE_URL: server.baseURL },
      { retry: false },
    );
    const response = await model.generate([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture?" },
          { type: "image", image: "https://example.com/cat.png" },
          { type: "image", image: new URL("https://example.com/dog.jpg") },
        ],
      },
    ]);
    expect(model.id).toBe("openai:gpt-4o-mini");
    expect(response.usage).toEqual({ inputTokens: 24, outputTokens: 8 });
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-openai-test");
    expect(server.requests[0]?.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture?" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
          { type: "image_url", image_url: { url: "https://example.com/dog.jpg" } },
        ],
      },
    ]);
  });

  it("talks to Ollama's OpenAI-compatible endpoint at OLLAMA_BASE_URL, without a key", async () => {
    server = await startReplayServer([{ fixture: "chat-completion-code.json" }]);
    const model = resolveModel(
      "ollama:llama3.2",
      { OLLAMA_BASE_URL: `${server.baseURL}/` },
      { retry: false },
    );
    const response = await model.generate(task, { stopSequences: ["\n```\n", "\nObservation:"] });
    expect(response).toEqual({
      message: {
        role: "assistant",
        content:
          "Thought: I will multiply the numbers.\n```js\nconst product = 6 * 7;\nfinal_answer(product);\n```",
      },
      usage: { inputTokens: 1187, outputTokens: 27 },
      finishReason: "stop",
    });
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.body).toEqual({
      model: "llama3.2",
      messages: [{ role: "user", content: "What is 6 times 7?" }],
      stop: ["\n```\n", "\nObservation:"],
    });
  });

  it("talks to Anthropic's Messages API at ANTHROPIC_BASE_URL, tool images inside the tool result", async () => {
    server = await startReplayServer([{ fixture: "anthropic-message.json" }]);
    const model = resolveModel(
      "anthropic:claude-sonnet-4-5",
      { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseURL },
      { retry: false },
    );
    const response = await model.generate(
      [
        { role: "system", content: "You write code." },
        { role: "user", content: "What colour is the chart?" },
        { role: "assistant", content: "", toolCalls: [{ id: "toolu_1", name: "chart", input: {} }] },
        {
          role: "tool",
          toolCallId: "toolu_1",
          toolName: "chart",
          content: [
            { type: "text", text: "drawn" },
            { type: "image", image: PIXEL_BASE64, mediaType: "image/png" },
          ],
        },
      ],
      { stopSequences: ["\nObservation:"], maxOutputTokens: 256 },
    );
    expect(response).toEqual({
      message: {
        role: "assistant",
        content: 'Thought: the chart shows one red pixel.\n```js\nfinal_answer("red");\n```',
      },
      usage: { inputTokens: 412, outputTokens: 23 },
      finishReason: "stop",
    });
    const request = server.requests[0];
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers["x-api-key"]).toBe("sk-ant-test");
    expect(request?.body).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      stop_sequences: ["\nObservation:"],
      system: [{ type: "text", text: "You write code." }],
    });
    expect(request?.body.messages).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "What colour is the chart?" }],
      },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "chart", input: {} }] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_1",
            content: [
              { type: "text", text: "drawn" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL_BASE64 } },
            ],
          },
        ],
      },
    ]);
  });

  it("replays a scripted reply file, including a rehearsed provider failure that is retried", async () => {
    const model = resolveModel(
      `scripted:${fixturePath("scripted-replies-with-error.json")}`,
      {},
      {
        retry: { baseDelayMs: 1 },
      },
    );
    expect(await model.generate(task)).toEqual({
      message: {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "final_answer", input: { answer: 42 } }],
      },
      usage: { inputTokens: 120, outputTokens: 14 },
      finishReason: "tool-calls",
    });

    const bare = resolveModel(
      `scripted:${fixturePath("scripted-replies-with-error.json")}`,
      {},
      { retry: false },
    );
    const error = await bare.generate(task).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ status: 503, isRetryable: true });
    expect((error as Error).message).toBe(
      `scripted:${fixturePath("scripted-replies-with-error.json")} answered HTTP 503: The engine is currently overloaded, please try again later`,
    );
  });

  it("plays the demo script in order", async () => {
    const model = resolveModel(`scripted:${fixturePath("scripted-replies.json")}`, {});
    expect((await model.generate(task)).message.content).toBe(
      "Thought: I will compute the product and look at it.\n```js\nconst product = 6 * 7;\nconsole.log(product);\n```",
    );
    expect((await model.generate(task)).message.content).toBe(
      "Thought: The product is 42.\n```js\nfinal_answer(product);\n```",
    );
    await expect(model.generate(task)).rejects.toThrow("ScriptedModel: no reply scripted for call #3");
  });

  it("explains an unreadable, invalid or malformed reply file", () => {
    const missing = fixturePath("no-such-file.json");
    expect(configError(() => resolveModel(`scripted:${missing}`, {})).message).toMatch(
      new RegExp(`^Cannot read the scripted replies file ${missing}: ENOENT`),
    );
    const notJson = fixturePath("chat-completion-stream.sse");
    expect(configError(() => resolveModel(`scripted:${notJson}`, {})).message).toMatch(
      new RegExp(`^Scripted replies file ${notJson} is not valid JSON \\(.*\\); expected a JSON array`),
    );
    const malformed = fixturePath("scripted-replies-malformed.json");
    expect(configError(() => resolveModel(`scripted:${malformed}`, {})).message).toMatch(
      new RegExp(
        `^Scripted replies file ${malformed} is malformed at reply 2\\.toolCalls\\.0\\.name: Invalid input: expected string, received undefined; expected a JSON array`,
      ),
    );
  });
});
