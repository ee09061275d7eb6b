import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { conversationDrafts, TestPalaces } from "../../test/test-palaces.js";
import { palaceCore } from "../core/palace-core.js";
import { KnowledgeGraph } from "../kg/index.js";
import type { Palace } from "../palace.js";
import { exportPalace } from "./export-palace.js";
import { importPalace } from "./import-palace.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

const TURNS: [string, string][] = [
  ["Caroline", "I went to the LGBTQ support group yesterday and it was powerful."],
  ["Melanie", "That sounds great. I painted a sunrise over the lake last week."],
  ["Caroline", "I am researching adoption agencies; I want to be a mom."],
  ["Melanie", "Camping with the kids in the mountains was the highlight of our summer."],
  ["Caroline", "My friends gave me a necklace from my grandmother in Sweden."],
  ["Melanie", "We ran a charity 5k for the children's hospital."],
];

async function filledPalace(): Promise<Palace> {
  const palace = await palaces.open({ identity: "The user is Caroline." });
  await palace.replaceSource("conv-1", "hash-1", conversationDrafts("locomo", "conv-1", TURNS));
  const [note] = await palace.file([
    {
      content: "Caroline's birthday is on 3 May.",
      wing: "locomo",
      room: "facts",
      hall: "facts",
      metadata: { confidence: 0.9, checked: true },
    },
  ]);
  await palace.update(note!.id, { pinned: true });
  await palace.search("adoption agencies", { k: 2 });
  new KnowledgeGraph(palace.database).add({
    subject: "Caroline",
    predicate: "lives_in",
    object: "Boston",
    validFrom: "2023-05",
  });
  palace.tunnels.create({
    from: { wing: "locomo", room: "conversation" },
    to: { wing: "locomo", room: "facts" },
    label: "birthdays",
  });
  const [first] = (await palace.list({ room: "conversation", limit: 1 })).drawers;
  palace.tunnels.create({ from: { drawerId: first!.id }, to: { drawerId: note!.id } });
  return palace;
}

const QUERIES = [
  "adoption",
  "painting sunrise lake",
  "grandmother necklace Sweden",
  "charity run for children",
  "birthday",
];

async function results(palace: Palace) {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    for (const mode of ["hybrid", "bm25", "vector"] as const) {
      out.push(await palace.search(query, { mode, k: 5, recordAccess: false, expandNeighbours: 1 }));
    }
    out.push(
      await palace.search(query, {
        wing: "locomo",
        room: "conversation",
        timeRange: { from: "2024-01-02" },
        recordAccess: false,
      }),
    );
  }
  return out;
}

describe("export / import", () => {
  it("a JSONL round trip into a new palace is lossless and gives identical search results", async () => {
    const original = await filledPalace();
    const file = join(await palaces.dir(), "export.jsonl");
    expect(await exportPalace(original, file)).toEqual({
      drawers: 7,
      sources: 1,
      knowledgeGraphRows: 3,
      tunnels: 2,
    });
    const copy = await palaces.open();
    expect(await importPalace(copy, file)).toEqual({
      drawers: 7,
      skipped: 0,
      sources: 1,
      knowledgeGraphRows: 3,
      tunnels: 2,
    });
    expect(copy.tunnels.list()).toEqual(original.tunnels.list());
    expect(copy.tunnels.list()).toHaveLength(2);

    expect((await copy.list()).drawers).toEqual((await original.list()).drawers);
    expect(copy.getSource("conv-1")).toEqual(original.getSource("conv-1"));
    expect(copy.identity).toBe("The user is Caroline.");
    expect(await results(copy)).toEqual(await results(original));
    const pinned = (await copy.list({ pinned: true })).drawers;
    expect(pinned.map((drawer) => drawer.content)).toEqual(["Caroline's birthday is on 3 May."]);
    expect((await copy.list({ room: "conversation" })).drawers[2]?.accessCount).toBe(1);
    expect(
      new KnowledgeGraph(copy.database).query({ subject: "Caroline" }).map((fact) => fact.object),
    ).toEqual(["Boston"]);

    // Exporting the copy gives the same lines (but the time of export).
    const again = join(await palaces.dir(), "again.jsonl");
    await exportPalace(copy, again);
    const strip = (text: string) => text.split("\n").slice(1);
    expect(strip(await readFile(again, "utf8"))).toEqual(strip(await readFile(file, "utf8")));
    expect((await copy.status()).pendingVectors).toBe(0);
    expect((await palaceCore(copy).index.ids()).sort()).toEqual(
      (await palaceCore(original).index.ids()).sort(),
    );
  });

  it("importing twice skips what is there; a bad line is refused naming it, changing nothing", async () => {
    const original = await filledPalace();
    const file = join(await palaces.dir(), "export.jsonl");
    await exportPalace(original, file);
    const copy = await palaces.open();
    await importPalace(copy, file);
    expect(await importPalace(copy, file)).toMatchObject({ drawers: 0, skipped: 7, tunnels: 0 });

    const lines = (await readFile(file, "utf8")).split("\n");
    const tampered = JSON.parse(lines[2] as string);
    tampered.content = "edited";
    const bad = join(await palaces.dir(), "bad.jsonl");
    await writeFile(bad, [lines[0], lines[1], JSON.stringify(tampered)].join("\n"));
    const empty = await palaces.open();
    await expect(importPalace(empty, bad)).rejects.toThrow(
      `${bad}:3: drawer ${tampered.id} does not match its content (its id or contentHash was edited); restore the line from the original export`,
    );
    const tunnelAt = lines.findIndex((line) => line.startsWith('{"kind":"tunnel"'));
    const movedTunnel = JSON.parse(lines[tunnelAt] as string);
    movedTunnel.label = "renamed";
    await writeFile(bad, [...lines.slice(0, tunnelAt), JSON.stringify(movedTunnel)].join("\n"));
    await expect(importPalace(empty, bad)).rejects.toThrow(
      `${bad}:${tunnelAt + 1}: tunnel ${movedTunnel.id} does not match its ends and label; restore the line from the original export`,
    );
    expect(empty.tunnels.list()).toEqual([]);
    await writeFile(bad, "not json\n");
    await expect(importPalace(empty, bad)).rejects.toThrow(`${bad}:1: is not JSON`);
    expect((await empty.status()).drawers).toBe(0);
  });
});
