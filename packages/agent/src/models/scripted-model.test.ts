import { AbortError, ConfigError, type Message, ModelError, type ModelStreamPart } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { ScriptedModel, splitIntoDeltas } from "./scripted-model.js";

const task: Message[] = [{ role: "user", content: "What is 6 times 7?" }];

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const out: ModelStreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe("ScriptedModel", () => {
  it("returns canned replies in order and records each call", async () => {
    const model = new ScriptedModel([
      "first",
      { content: "second", usage: { inputTokens: 3, outputTokens: 1 } },
    ]);
    const one = await model.generate(task, { temperature: 0 });
    const two = await model.generate([...task, one.message]);
    expect(one).toEqual({
      message: { role: "assistant", content: "first" },
      usage: { inputTokens: 5, outputTokens: 2 }, // "What is 6 times 7?" = 18 chars → 5; "first" → 2
      finishReason: "stop",
    });
    expect(two).toEqual({
      message: { role: "assistant", content: "second" },
      usage: { inputTokens: 3, outputTokens: 1 },
      finishReason: "stop",
    });
    expect(model.calls).toHaveLength(2);
    expect(model.calls[0]).toEqual({ messages: task, options: { temperature: 0 } });
    expect(model.calls[1]?.messages).toEqual([...task, { role: "assistant", content: "first" }]);
    expect(model.id).toBe("scripted");
    expect(model.remaining).toBe(0);
  });

  it("keeps a snapshot of the messages array even if the caller pushes to it later", async () => {
    const model = new ScriptedModel(["ok"]);
    const messages: Message[] = [...task];
    await model.generate(messages);
    messages.push({ role: "assistant", content: "later" });
    expect(model.calls[0]?.messages).toHaveLength(1);
  });

  it("throws a clear ConfigError when the script runs out", async () => {
    const model = new ScriptedModel(["only"]);
    await model.generate(task);
    const error = await model.generate(task).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      "ScriptedModel: no reply scripted for call #2 (the script has 1 reply); add replies to the script or expect fewer model calls",
    );
  });

  it("computes replies with a function of messages, options and call index", async () => {
    const model = new ScriptedModel(
      (messages, options, callIndex) => `${callIndex}:${messages.length}:${options.maxOutputTokens}`,
      {
        id: "scripted:fn",
      },
    );
    expect((await model.generate(task, { maxOutputTokens: 9 })).message.content).toBe("0:1:9");
    expect((await model.generate([...task, ...task])).message.content).toBe("1:2:undefined");
    expect(model.id).toBe("scripted:fn");
    expect(model.remaining).toBe(Number.POSITIVE_INFINITY);
  });

  it("rejects a function reply of the wrong shape naming the call", async () => {
    const model = new ScriptedModel(() => ({ text: "oops" }) as never);
    await expect(model.generate(task)).rejects.toThrow(
      "ScriptedModel: the reply for call #1 must be a string, { content: string, toolCalls?, usage? } or an Error; got an object with keys text",
    );
  });

  it("cuts the text at the earliest stop sequence, dropping the sequence", async () => {
    const model = new ScriptedModel(["Thought: add\n```js\n1+1\n```<end_code>\nObservation: 2"]);
    const response = await model.generate(task, { stopSequences: ["Observation:", "<end_code>"] });
    expect(response.message.content).toBe("Thought: add\n```js\n1+1\n```");
    expect(response.usage.outputTokens).toBe(7); // 25 chars / 4 rounded up
  });

  it("returns tool calls with derived ids and finish reason tool-calls", async () => {
    const model = new ScriptedModel([
      {
        content: "",
        toolCalls: [
          { name: "add", input: { a: 1 } },
          { id: "x", name: "mul", input: {} },
        ],
      },
    ]);
    const response = await model.generate(task);
    expect(response.message).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [
        { id: "call_1_1", name: "add", input: { a: 1 } },
        { id: "x", name: "mul", input: {} },
      ],
    });
    expect(response.finishReason).toBe("tool-calls");
  });

  it("throws scripted errors to rehearse provider failures", async () => {
    const failure = new ModelError("rate limited", { status: 429, isRetryable: true });
    const model = new ScriptedModel([failure, "recovered"]);
    await expect(model.generate(task)).rejects.toBe(failure);
    expect((await model.generate(task)).message.content).toBe("recovered");
  });

  it("counts images and tool-call inputs in the usage estimate", async () => {
    const model = new ScriptedModel(["seen"]);
    const response = await model.generate([
      { role: "system", content: "be brief" }, // 2
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image", image: new Uint8Array([1]), mediaType: "image/png" },
        ],
      }, // 1 + 85
      { role: "assistant", content: "", toolCalls: [{ id: "1", name: "f", input: { a: 1 } }] }, // "f{"a":1}" 8 chars → 2
    ]);
    expect(response.usage).toEqual({ inputTokens: 90, outputTokens: 1 });
  });

  it("streams word deltas, tool calls and exactly one finish equal to generate's response", async () => {
    const reply = { content: "Hello brave  new world", toolCalls: [{ id: "t1", name: "f", input: 1 }] };
    const streamed = await collect(new ScriptedModel([reply]).stream(task, { stopSequences: ["world"] }));
    const generated = await new ScriptedModel([reply]).generate(task, { stopSequences: ["world"] });
    expect(streamed).toEqual([
      { type: "text-delta", text: "Hello " },
      { type: "text-delta", text: "brave  " },
      { type: "text-delta", text: "new " },
      { type: "tool-call", toolCall: { id: "t1", name: "f", input: 1 } },
      { type: "finish", response: generated },
    ]);
  });

  it("splits text into deltas that concatenate back exactly", () => {
    const text = "  leading\nand\ttabs  trailing  ";
    expect(splitIntoDeltas(text)).toEqual(["  ", "leading\n", "and\t", "tabs  ", "trailing  "]);
    expect(splitIntoDeltas("")).toEqual([]);
  });

  it("honours abort signals before the call, in a slow function and mid-stream", async () => {
    const aborted = AbortSignal.abort();
    const model = new ScriptedModel(["a b c", "x"]);
    await expect(model.generate(task, { signal: aborted })).rejects.toBeInstanceOf(AbortError);
    expect(model.calls).toHaveLength(0);

    const controller = new AbortController();
    const slow = new ScriptedModel(() => new Promise<string>(() => {}));
    const pending = slow.generate(task, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);

    const midStream = new AbortController();
    const seen: string[] = [];
    const run = async () => {
      for await (const part of model.stream(task, { signal: midStream.signal })) {
        if (part.type === "text-delta") seen.push(part.text);
        midStream.abort();
      }
    };
    await expect(run()).rejects.toBeInstanceOf(AbortError);
    expect(seen).toEqual(["a "]);
  });

  it("rejects a script that is neither a list nor a function", () => {
    expect(() => new ScriptedModel("hello" as never)).toThrow(ConfigError);
  });
});
