import { describe, expect, it } from "vitest";
import { AgentMemory, CodeAgent, type SerializedMemory } from "../src/agents/index.js";
import { ScriptedModel } from "../src/models/index.js";
import { add, js, track } from "./support/agents.js";

describe("memory", () => {
  it("keeps images in spec's ImagePart shape, and loads runs saved in the old { data } / { url } shape", () => {
    const oldSave = {
      version: 1,
      steps: [
        {
          type: "task",
          task: "Look.",
          images: [
            { type: "image", data: "iVBORw0KGgo=", mediaType: "image/png" },
            { type: "image", url: "https://example.com/cat.jpg" },
          ],
        },
      ],
    };
    const loaded = AgentMemory.fromJSON(JSON.stringify(oldSave));
    expect(loaded.toJSON().steps[0]).toEqual({
      type: "task",
      task: "Look.",
      images: [
        { type: "image", image: "iVBORw0KGgo=", mediaType: "image/png" },
        { type: "image", image: "https://example.com/cat.jpg" },
      ],
    });
    expect(loaded.toMessages("system", { keepImagesForSteps: 1 })[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "New task:\nLook." },
        { type: "image", image: "iVBORw0KGgo=", mediaType: "image/png" },
        { type: "image", image: new URL("https://example.com/cat.jpg") },
      ],
    });
  });

  it("round-trips through JSON and a new agent continues the run from it", async () => {
    const first = new ScriptedModel([
      js("const total = await add({ a: 20, b: 22 });\nconsole.log(total);"),
      js("final_answer(total)"),
    ]);
    const agent = track(new CodeAgent({ model: first, tools: [add] }));
    await agent.run("Add 20 and 22.");
    const saved = JSON.stringify(agent.memory);
    const parsed = JSON.parse(saved) as SerializedMemory;
    expect(parsed.version).toBe(1);
    expect(AgentMemory.fromJSON(saved).toJSON()).toEqual(parsed);
    expect(parsed.steps.map((step) => step.type)).toEqual(["task", "action", "action", "final-answer"]);

    const second = new ScriptedModel([js("final_answer(42 + 1)")]);
    const resumed = track(new CodeAgent({ model: second, tools: [add] }));
    const result = await resumed.run("Now add one to it.", { memory: saved });
    expect(result.output).toBe(43);
    expect(second.calls[0]!.messages.slice(1)).toEqual([
      { role: "user", content: "New task:\nAdd 20 and 22." },
      { role: "assistant", content: js("const total = await add({ a: 20, b: 22 });\nconsole.log(total);") },
      { role: "user", content: "Observation:\nExecution logs:\n42" },
      { role: "assistant", content: js("final_answer(total)") },
      { role: "user", content: "Observation:\nfinal_answer was called with:\n42" },
      { role: "user", content: "New task:\nNow add one to it." },
    ]);
    expect(resumed.memory.steps.map((step) => step.type)).toEqual([
      "task",
      "action",
      "action",
      "final-answer",
      "task",
      "action",
      "final-answer",
    ]);
  });

  it("reset: false keeps memory and the sandbox's variables; the default reset drops both", async () => {
    const model = new ScriptedModel([
      js("const kept = 5;\nfinal_answer(kept)"),
      js("final_answer(kept + 1)"),
      js("final_answer(typeof kept)"),
    ]);
    const agent = track(new CodeAgent({ model }));
    expect((await agent.run("Define kept.")).output).toBe(5);
    const continued = await agent.run("Use kept.", { reset: false });
    expect(continued.output).toBe(6);
    expect(continued.steps.map((step) => step.type)).toEqual(["task", "action", "final-answer"]);
    expect(agent.memory.steps).toHaveLength(6);
    expect((await agent.run("Is kept there?")).output).toBe("undefined");
    expect(agent.memory.steps).toHaveLength(3);
  });

  it("rejects a saved memory that is not one", () => {
    expect(() => AgentMemory.fromJSON({ steps: [] } as never)).toThrow(
      "saved memory must be { version: 1, steps: [...] }, as returned by memory.toJSON()",
    );
    // V8's own wording of the parse error differs between Node versions.
    const parseError = (() => {
      try {
        JSON.parse("{ version: 1");
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(() => AgentMemory.fromJSON("{ version: 1")).toThrow(
      `saved memory is not valid JSON (${parseError}); pass JSON.stringify(agent.memory) or memory.toJSON()`,
    );
    const oddStep = { version: 1, steps: [{ type: "task", task: "x" }, { type: "thought" }] };
    expect(() => AgentMemory.fromJSON(oddStep as never)).toThrow(
      "saved memory: step 2 is not a task, planning, action or final-answer step; pass what memory.toJSON() returned",
    );
  });
});
