import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { CodeAgent } from "../src/agents/index.js";
import { resolveModel } from "../src/models/index.js";
import { fixturePath, type ReplayServer, startReplayServer } from "./fixtures/models/replay-server.js";
import { track } from "./support/agents.js";

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("CodeAgent over the AI SDK adapter (loopback OpenAI-compatible server)", () => {
  it("sends the system prompt, the task image and the stop sequences, and runs the returned code", async () => {
    server = await startReplayServer([{ fixture: "chat-completion-code.json" }]);
    const model = resolveModel(`openai-compatible:${server.baseURL}#gpt-4o-mini`, {});
    const agent = track(new CodeAgent({ model }));
    const result = await agent.run("What is 6 times 7?", { images: [fixturePath("pixel.png")] });

    expect(result.state).toBe("success");
    expect(result.output).toBe(42);
    expect(result.usage).toEqual({ inputTokens: 1187, outputTokens: 27 });
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body as {
      model: string;
      stop: string[];
      messages: { role: string; content: unknown }[];
    };
    expect(body.model).toBe("gpt-4o-mini");
    expect(body.stop).toEqual(["\n```\n", "\nObservation:"]);
    expect(body.messages.map((message) => message.role)).toEqual(["system", "user"]);
    const system = body.messages[0]!.content as string;
    expect(
      system.startsWith("You are an expert assistant who solves tasks by writing JavaScript code."),
    ).toBe(true);
    expect(system).toContain("function final_answer(answer: unknown): never;");
    expect(body.messages[1]!.content).toEqual([
      { type: "text", text: "New task:\nWhat is 6 times 7?" },
      {
        type: "image_url",
        image_url: {
          url: `data:image/png;base64,${readFileSync(fixturePath("pixel.png")).toString("base64")}`,
        },
      },
    ]);
  });
});
