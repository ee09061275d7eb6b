import type { Tool } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";
import type { Palace } from "../palace.js";
import { palaceTools } from "./palace-tools.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

const signal = new AbortController().signal;

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

  it("offers recall, remember, kg_query, kg_add, diary_write, diary_read with JSON Schemas", async () => {
    palace = await palaces.open();
    const tools = palaceTools(palace);
    expect(tools.map((tool) => tool.name)).toEqual([
      "recall",
      "remember",
      "kg_query",
      "kg_add",
      "diary_write",
      "diary_read",
    ]);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["query"] });
    expect(Object.keys((tools[3]!.inputSchema as { properties: object }).properties)).toEqual([
      "subject",
      "predicate",
      "object",
      "valid_from",
      "valid_to",
      "source_drawer_id",
      "on_conflict",
    ]);
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
    const hits = (await call(tools, "recall", { query: "what is the cat called", k: 1 })) as {
      id: string;
      content: string;
    }[];
    expect(hits.map((hit) => hit.content)).toEqual(["The user's cat is called Miso."]);

    const work = palaceTools(palace, { wing: "work" });
    expect(
      ((await call(work, "recall", { query: "cat Miso" })) as { wing: string }[]).every(
        (hit) => hit.wing === "work",
      ),
    ).toBe(true);
    await expect(call(work, "recall", { query: "cat", wing: "memories" })).rejects.toThrow(
      'wing: these tools are confined to wing "work"; leave wing out or pass "work"',
    );
  });

  it("adds facts and reports a conflict as a readable observation", async () => {
    palace = await palaces.open();
    palace.kg.declarePredicate("lives_in", { singleValued: true });
    const tools = palaceTools(palace);
    const added = (await call(tools, "kg_add", {
      subject: "Caroline",
      predicate: "lives_in",
      object: "Boston",
      valid_from: "2023-05",
    })) as { stored: boolean; observation: string };
    expect(added).toMatchObject({
      stored: true,
      observation: "Stored: Caroline — lives_in → Boston (since 2023-05).",
    });
    const conflict = (await call(tools, "kg_add", {
      subject: "Caroline",
      predicate: "lives_in",
      object: "Lisbon",
    })) as { stored: boolean; conflicts: unknown[]; observation: string };
    expect(conflict.stored).toBe(false);
    expect(conflict.conflicts).toHaveLength(1);
    expect(conflict.observation).toMatch(/^Not stored\. .*Boston/);
    expect(await call(tools, "kg_query", { subject: "caroline" })).toEqual([
      expect.objectContaining({
        subject: "Caroline",
        predicate: "lives_in",
        object: "Boston",
        valid_from: "2023-05",
        text: "Caroline — lives_in → Boston (since 2023-05)",
      }),
    ]);
  });

  it("keeps the agent's diary and validates every input, naming the field", async () => {
    palace = await palaces.open();
    const tools = palaceTools(palace, { agent: "helper" });
    const written = (await call(tools, "diary_write", {
      entry: "Learned the user's cat's name.",
      topic: "user",
    })) as { created: boolean; room: string };
    expect(written).toMatchObject({ created: true, room: "user" });
    expect(
      ((await call(tools, "diary_read", {})) as { entry: string }[]).map((entry) => entry.entry),
    ).toEqual(["Learned the user's cat's name."]);
    expect(
      (await palaceTools(palace, { agent: "someone-else" })
        .find((tool) => tool.name === "diary_read")!
        .execute({}, { signal })) as unknown[],
    ).toEqual([]);

    expect(await call(tools, "recall", {})).toEqual({ issues: ["query: query must be text"] });
    expect(await call(tools, "recall", { query: "x", k: 0 })).toEqual({
      issues: ["k: k must be at least 1"],
    });
    expect(await call(tools, "remember", { content: "  " })).toEqual({
      issues: ["content: content must not be empty"],
    });
    expect(
      await call(tools, "kg_add", { subject: "a", predicate: "b", object: "c", on_conflict: "merge" }),
    ).toEqual({
      issues: ['on_conflict: on_conflict must be "report", "invalidate" or "keep-both"'],
    });
    expect(await call(tools, "diary_read", { last: 1.5 })).toEqual({
      issues: ["last: last must be a whole number"],
    });
    expect(
      ((await call(tools, "recall", { query: "x", limit: 3 })) as { issues: string[] }).issues,
    ).toHaveLength(1);
    expect(() => palaceTools(palace, { wing: "" })).toThrow(
      "options.wing: must be non-empty text when given",
    );
  });
});
