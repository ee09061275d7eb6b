// A CodeAgent keeps long-term memory in a palace: its code (real QuickJS) calls the palace's
// agent tools (remember, kg_add, diary_write, then recall, kg_query, diary_read), on a real
// palace directory with a real Chroma server; a second run, on the reopened palace, recalls
// what the first one stored.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CodeAgent, QuickJsExecutor, ScriptedModel } from "@atrium/agent";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { openPalace, type Palace, PalaceMemoryStore, PalaceView, palaceTools } from "@atrium/palace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { js, lastText } from "./scripted-steps.js";

describe("CodeAgent × palace", () => {
  let server: ChromaServer;
  let dir: string;
  let chromaDir: string;
  const agents: CodeAgent[] = [];
  const palaces: Palace[] = [];

  beforeAll(async () => {
    chromaDir = mkdtempSync(join(tmpdir(), "atrium-e2e-palace-chroma-"));
    dir = mkdtempSync(join(tmpdir(), "atrium-e2e-palace-"));
    server = await startChromaServer({ path: chromaDir });
  }, 60_000);
  afterAll(async () => {
    await Promise.allSettled([
      ...agents.map((agent) => agent.close()),
      ...palaces.map((palace) => palace.close()),
    ]);
    try {
      await server?.stop();
    } finally {
      for (const path of [dir, chromaDir]) if (path) rmSync(path, { recursive: true, force: true });
    }
  });

  const open = async () => {
    const palace = await openPalace(dir, { create: true, chromaUrl: server.url });
    palaces.push(palace);
    return palace;
  };
  const agentWith = (model: ScriptedModel, palace: Palace) => {
    const agent = new CodeAgent({
      model,
      tools: palaceTools(palace, { agent: "helper" }),
      executor: () => QuickJsExecutor.create(),
    });
    agents.push(agent);
    return agent;
  };

  it("remembers in one run and recalls in the next, on the reopened palace", async () => {
    const first = await open();
    first.kg.declarePredicate("lives_in", { singleValued: true });
    const model = new ScriptedModel([
      js(
        [
          'const saved = await remember({ content: "The user\'s cat is called Miso.", room: "pets" });',
          'const fact = await kg_add({ subject: "user", predicate: "lives_in", object: "Lisbon", validFrom: "2024-02" });',
          'const moved = await kg_add({ subject: "user", predicate: "lives_in", object: "Porto" });',
          'await diary_write({ entry: "Learned about the cat.", topic: "user" });',
          "console.log(saved.created, fact.observation);",
          "console.log(moved.observation);",
        ].join("\n"),
      ),
      js('final_answer("noted");'),
    ]);
    const result = await agentWith(model, first).run("My cat is Miso and I live in Lisbon. Remember that.");
    expect(result.state).toBe("success");
    expect(lastText(model.calls[1]!.messages)).toBe(
      [
        "Observation:",
        "Execution logs:",
        "true Stored: user — lives_in → Lisbon (since 2024-02).",
        `Not stored. ${first.kg.add({ subject: "user", predicate: "lives_in", object: "Porto" }).conflicts[0]!.message}`,
      ].join("\n"),
    );
    await first.close();

    const second = await open();
    const recalling = new ScriptedModel([
      js(
        [
          'const { hits } = await recall({ query: "what is the name of my cat?", k: 2 });',
          'const { facts } = await kg_query({ subject: "user", predicate: "lives_in" });',
          "const { entries } = await diary_read({ last: 1 });",
          "final_answer({ memories: hits.map((h) => h.room + ': ' + h.content).sort(), lives: facts.map((f) => f.text), diary: entries[0].entry });",
        ].join("\n"),
      ),
    ]);
    const recalled = await agentWith(recalling, second).run("What is my cat called, and where do I live?");
    expect(recalled.state).toBe("success");
    expect(recalled.output).toEqual({
      // The diary entry is a memory too: both come back.
      memories: ["pets: The user's cat is called Miso.", "user: Learned about the cat."],
      lives: ["user — lives_in → Lisbon (since 2024-02)"],
      diary: "Learned about the cat.",
    });
  }, 60_000);

  it("a per-identity PalaceMemoryStore as the agent's long-term memory recalls only that identity's memories", async () => {
    const palace = await open();
    await palace.file([
      {
        content: "Alice's locker code is 3141.",
        wing: "alice",
        room: "memories",
        timestamp: "2024-05-01T09:00:00Z",
      },
      {
        content: "Bob's locker code is 2718.",
        wing: "bob",
        room: "memories",
        timestamp: "2024-05-01T09:00:00Z",
      },
    ]);
    const store = new PalaceMemoryStore(
      new PalaceView(palace, { read: ["alice"], write: ["alice"] }, "alice"),
      {
        closePalace: false,
      },
    );
    const model = new ScriptedModel([js('final_answer("3141");')]);
    const agent = new CodeAgent({
      model,
      executor: () => QuickJsExecutor.create(),
      longTermMemory: { store, wakeUpTokens: 0 },
    });
    agents.push(agent);
    const result = await agent.run("What is my locker code?");
    expect(result.output).toBe("3141");
    const system = model.calls[0]!.messages[0]!.content as string;
    expect(system).toContain('- (alice/memories, 2024-05-01) "Alice\'s locker code is 3141."');
    expect(system).not.toContain("2718");
    // Filed after the run, in alice's own wing.
    const filed = await palace.list({ wing: "alice", hall: "memories" });
    expect(filed.drawers.map((drawer) => drawer.content)).toEqual([
      "Task: What is my locker code?\nAnswer: 3141",
    ]);
  }, 60_000);

  it("a bad tool call comes back as an observation naming the field", async () => {
    const palace = await open();
    const model = new ScriptedModel([js('await recall({ query: "" });'), js('final_answer("done");')]);
    const result = await agentWith(model, palace).run("Recall nothing.");
    expect(result.state).toBe("success");
    expect(lastText(model.calls[1]!.messages)).toMatch(/query: is empty; give what to look for/);
  }, 60_000);
});
