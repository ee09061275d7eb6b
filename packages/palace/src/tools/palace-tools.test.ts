import type { Tool } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";
import type { Palace } from "../palace.js";
import { palaceTools } from "./palace-tools.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

const signal = new AbortController().signal;

/** The agent's memory tools, as the demo picks them. */
const MEMORY = ["recall", "remember", "kg_query", "kg_add", "diary_write", "diary_read"];

/** Calls a tool the way an agent does: validate, then execute the parsed input. */
async function call(tools: Tool[], name: string, input: unknown) {
  const tool = tools.find((candidate) => candidate.name === name)!;
  const checked = await tool.validate!(input);
  if (!checked.ok)
    return { issues: checked.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`) };
  return tool.execute(checked.value, { signal });
}

describe("palaceTools", () => {
  let palace: Palace;

  it("offers every palace tool once, camelCase arguments with JSON Schemas; `only` picks some", async () => {
    palace = await palaces.open();
    const tools = palaceTools(palace);
    expect(tools).toHaveLength(27);
    expect(new Set(tools.map((tool) => tool.name)).size).toBe(tools.length);
    expect(tools.find((tool) => tool.name === "recall")?.inputSchema).toMatchObject({
      type: "object",
      required: ["query"],
    });
    const kgAdd = tools.find((tool) => tool.name === "kg_add")!;
    expect(Object.keys((kgAdd.inputSchema as { properties: object }).properties)).toEqual([
      "wing",
      "subject",
      "predicate",
      "object",
      "validFrom",
      "validTo",
      "sourceDrawerId",
      "confidence",
      "onConflict",
    ]);
    expect(palaceTools(palace, { only: [...MEMORY].reverse() }).map((tool) => tool.name)).toEqual(MEMORY);
    expect(() => palaceTools(palace, { only: ["recall", "forget"] })).toThrow(
      'options.only: has "forget", not a palace tool; known: status, ',
    );
  });

  it("remembers, then recalls; a wing-confined set stays in its wing", async () => {
    palace = await palaces.open();
    const tools = palaceTools(palace);
    const remembered = (await call(tools, "remember", { content: "The user's cat is called Miso." })) as {
      id: string;
      created: boolean;
    };
    expect(remembered.created).toBe(true);
    expect(await call(tools, "remember", { content: "The user's cat is called Miso." })).toEqual({
      ...remembered,
      created: false,
    });
    expect(await palace.get(remembered.id)).toMatchObject({
      wing: "memories",
      room: "general",
      hall: "memories",
      source: "agent",
    });
    await call(tools, "remember", { content: "Deploys happen on Tuesdays.", wing: "work", room: "ops" });
    const { hits } = (await call(tools, "recall", { query: "what is the cat called", k: 1 })) as {
      hits: { id: string; content: string }[];
    };
    expect(hits.map((hit) => hit.content)).toEqual(["The user's cat is called Miso."]);
    const work = palaceTools(palace, { wing: "work" });
    const inWork = (await call(work, "recall", { query: "cat Miso" })) as { hits: { wing: string }[] };
    expect(inWork.hits.every((hit) => hit.wing === "work")).toBe(true);
    await expect(call(work, "recall", { query: "cat", wing: "memories" })).rejects.toThrow(
      'wing: these tools are confined to wing "work"; leave wing out or pass "work"',
    );
    await expect(call(work, "search", { query: "cat", wing: "memories" })).rejects.toThrow(/may not read/);
  });

  it("adds facts and reports a conflict as a readable observation", async () => {
    palace = await palaces.open();
    palace.kg.declarePredicate("lives_in", { singleValued: true });
    const tools = palaceTools(palace);
    const added = (await call(tools, "kg_add", {
      subject: "Caroline",
      predicate: "lives_in",
      object: "Boston",
      validFrom: "2023-05",
    })) as { created: boolean; observation: string };
    expect(added).toMatchObject({
      created: true,
      observation: "Stored: Caroline — lives_in → Boston (since 2023-05).",
    });
    const conflict = (await call(tools, "kg_add", {
      subject: "Caroline",
      predicate: "lives_in",
      object: "Lisbon",
    })) as { created: boolean; conflicts: { resolution: string; message: string }[]; observation: string };
    expect(conflict.created).toBe(false);
    expect(conflict.conflicts).toEqual([
      expect.objectContaining({ resolution: "refused", message: expect.stringContaining("Boston") }),
    ]);
    expect(conflict.observation).toMatch(/^Not stored\. .*Boston/);
    expect(await call(tools, "kg_query", { subject: "caroline" })).toEqual({
      facts: [
        expect.objectContaining({
          subject: "Caroline",
          predicate: "lives_in",
          object: "Boston",
          validFrom: "2023-05",
          text: "Caroline — lives_in → Boston (since 2023-05)",
        }),
      ],
    });
  });

  it("keeps the agent's diary and validates every input, naming the field", async () => {
    palace = await palaces.open();
    const tools = palaceTools(palace, { agent: "helper" });
    const written = (await call(tools, "diary_write", {
      entry: "Learned the user's cat's name.",
      topic: "user",
    })) as { created: boolean; room: string };
    expect(written).toMatchObject({ created: true, room: "user" });
    const diary = (await call(tools, "diary_read", {})) as { agent: string; entries: { entry: string }[] };
    expect(diary.agent).toBe("helper");
    expect(diary.entries.map((entry) => entry.entry)).toEqual(["Learned the user's cat's name."]);
    await expect(call(tools, "diary_read", { agent: "someone-else" })).rejects.toThrow(
      'agent: these tools are confined to agent "helper"; leave agent out or pass "helper"',
    );
    expect(await call(palaceTools(palace), "diary_read", { agent: "someone-else" })).toEqual({
      agent: "someone-else",
      entries: [],
    });
    expect(await call(tools, "recall", {})).toEqual({
      issues: ["query: must be text (what to look for, in words)"],
    });
    expect(await call(tools, "recall", { query: "x", k: 0 })).toEqual({
      issues: ["k: must be at least 1 (k)"],
    });
    expect(await call(tools, "remember", { content: "  " })).toEqual({
      issues: ["content: is empty; give the memory"],
    });
    expect(
      await call(tools, "kg_add", { subject: "a", predicate: "b", object: "c", onConflict: "merge" }),
    ).toEqual({ issues: ["onConflict: must be report, invalidate or keep-both"] });
    expect(await call(tools, "diary_read", { last: 1.5 })).toEqual({
      issues: ["last: must be a whole number (last)"],
    });
    expect(
      ((await call(tools, "recall", { query: "x", limit: 3 })) as { issues: string[] }).issues,
    ).toHaveLength(1);
    expect(() => palaceTools(palace, { wing: "" })).toThrow(
      "options.wing: must be non-empty text when given",
    );
  });
});
