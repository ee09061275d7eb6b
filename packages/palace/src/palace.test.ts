import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hashingEmbedding } from "@atrium/chroma";
import { ClosedError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { conversationDrafts, TEST_STORE, TestPalaces } from "../test/test-palaces.js";
import { palaceCore } from "./core/palace-core.js";
import { LEXICAL_TABLE } from "./db/lexical-table.js";
import { drawerId } from "./drawers/drawer-id.js";
import { isPalaceError, PalaceError } from "./errors.js";
import { initPalace, openPalace } from "./open-palace.js";
import { hybridSearch } from "./search/hybrid-search.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

const TURNS: [string, string][] = [
  ["Caroline", "I adopted a grey rescue cat named Pixel last week."],
  ["Melanie", "Lovely! How is Pixel settling in?"],
  ["Caroline", "She hides under the sofa, but she loves the balcony."],
  ["Melanie", "I started painting watercolour landscapes on Sundays."],
  ["Caroline", "I am training for the Lisbon marathon in October."],
];

async function vectorIds(palace: Awaited<ReturnType<TestPalaces["open"]>>): Promise<string[]> {
  return (await palaceCore(palace).index.ids()).sort();
}

describe("palace layout", () => {
  it("initPalace writes palace.json, palace.sqlite and chroma/; a second init is refused", async () => {
    const dir = await palaces.dir();
    const config = await initPalace(dir, { name: "home", identity: "I am Caroline." });
    expect(config).toMatchObject({
      format: 1,
      name: "home",
      embedding: "hashing-v1-384",
      identity: "I am Caroline.",
    });
    expect(config.collection).toMatch(/^palace-home-[0-9a-f]{8}$/);
    expect(JSON.parse(await readFile(join(dir, "palace.json"), "utf8"))).toEqual(config);
    await expect(initPalace(dir)).rejects.toThrow(/is already a palace/);
  });

  it("opening a directory that is not a palace names it and the init command", async () => {
    const dir = await palaces.dir();
    const error = await openPalace(dir).catch((caught: unknown) => caught);
    expect(isPalaceError(error, "palace/not-found")).toBe(true);
    expect((error as Error).message).toBe(
      `${dir} is not a palace (no palace.json); create one with \`atrium-palace init ${dir}\` or initPalace()`,
    );
  });

  it("a palace.json from a newer version, or malformed, is a format error", async () => {
    const dir = await palaces.dir();
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "palace.json"),
      JSON.stringify({ format: 9, name: "x", embedding: "hashing", collection: "abc", createdAt: "" }),
    );
    await expect(openPalace(dir)).rejects.toThrow(
      `${join(dir, "palace.json")} has format 9, newer than this @atrium/palace reads (1); upgrade @atrium/palace`,
    );
    await writeFile(join(dir, "palace.json"), JSON.stringify({ format: 1, name: "x" }));
    await expect(openPalace(dir)).rejects.toThrow(/palace\.json is malformed: embedding: .*collection: /);
  });

  it("another embedding than the recorded one is refused, naming both and repair --reembed", async () => {
    const dir = await palaces.dir();
    await initPalace(dir);
    const error = await openPalace(dir, {
      embedding: hashingEmbedding({ dimensions: 64 }),
      chromaUrl: await palaces.chromaUrl(),
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PalaceError);
    expect((error as PalaceError).palaceCode).toBe("palace/conflict");
    expect((error as Error).message).toContain("was built with embedding hashing-v1-384, not hashing-v1-64");
    expect((error as Error).message).toContain("atrium-palace repair --reembed --embedding hashing-v1-64");
  });
});

describe("filing drawers", () => {
  it("files drafts once: content-derived ids, a second filing is created: false, registry = vectors", async () => {
    const palace = await palaces.open();
    const drafts = conversationDrafts("caroline", "chat-1", TURNS);
    const first = await palace.file(drafts);
    expect(first.map((result) => result.created)).toEqual([true, true, true, true, true]);
    expect(first[0]?.id).toBe(drawerId(drafts[0]!));
    expect(first[0]?.id).toMatch(/^d_[0-9a-f]{24}$/);
    const again = await palace.file([...drafts, drafts[0]!]);
    expect(again).toEqual([...first, first[0]].map((result) => ({ id: result!.id, created: false })));
    expect(await vectorIds(palace)).toEqual(first.map((result) => result.id).sort());
    const stored = await palace.get(first[2]!.id);
    expect(stored).toMatchObject({
      content: TURNS[2]![1],
      wing: "caroline",
      room: "conversation",
      hall: "conversations",
      source: "chat-1",
      position: 2,
      speaker: "Caroline",
      turnId: "chat-1:3",
      sessionId: "chat-1",
      timestamp: "2024-01-03T00:00:00.000Z",
      pinned: false,
      accessCount: 0,
    });
    expect((await palace.status()).pendingVectors).toBe(0);
  });

  it("the same text in another room of the same wing is the same drawer; in another wing a new one", async () => {
    const palace = await palaces.open();
    const [a] = await palace.file([{ content: "Same words.", wing: "w1", room: "r1" }]);
    const [b] = await palace.file([{ content: "Same words.", wing: "w1", room: "r2" }]);
    const [c] = await palace.file([{ content: "Same words.", wing: "w2", room: "r1" }]);
    expect(b).toEqual({ id: a!.id, created: false });
    expect(c!.created).toBe(true);
    expect(c!.id).not.toBe(a!.id);
  });

  it("refuses bad drafts naming the field, and filing nothing of the batch", async () => {
    const palace = await palaces.open();
    await expect(
      palace.file([
        { content: "ok", wing: "w", room: "r" },
        { content: "  ", wing: "w", room: "r" },
      ]),
    ).rejects.toThrow("drafts[1].content: must be non-empty text");
    await expect(palace.file([{ content: "x", wing: "", room: "r" }])).rejects.toThrow(
      "drafts[0].wing: must be non-empty text",
    );
    await expect(
      palace.file([{ content: "x", wing: "w", room: "r", timestamp: "yesterday" }]),
    ).rejects.toThrow('drafts[0].timestamp: "yesterday" is not an ISO 8601 time');
    await expect(
      palace.file([{ content: "x", wing: "w", room: "r", metadata: { tags: ["a"] as unknown as string } }]),
    ).rejects.toThrow("drafts[0].metadata.tags: must be a string, a finite number or a boolean");
    expect((await palace.status()).drawers).toBe(0);
  });

  it("enforces maxDrawerChars and maxBatchDrafts from the limits", async () => {
    const palace = await palaces.open({ limits: { maxDrawerChars: 10, maxBatchDrafts: 2 } });
    await expect(palace.file([{ content: "x".repeat(11), wing: "w", room: "r" }])).rejects.toThrow(
      "drafts[0].content: has 11 characters, more than maxDrawerChars (10); split it into smaller drawers",
    );
    const three = ["a", "b", "c"].map((content) => ({ content, wing: "w", room: "r" }));
    await expect(palace.file(three)).rejects.toThrow("drafts has 3 drafts, more than maxBatchDrafts (2)");
  });
});

describe("replaceSource (the miners' DrawerSink)", () => {
  it("adds, keeps, moves and removes drawers of one source, and records its hash", async () => {
    const palace = await palaces.open();
    expect(palace.getSource("notes.md")).toBeUndefined();
    const v1 = ["alpha section", "beta section", "gamma section"].map((content, position) => ({
      content,
      wing: "project",
      room: "docs",
      position,
    }));
    expect(await palace.replaceSource("notes.md", "h1", v1)).toEqual({ added: 3, kept: 0, removed: 0 });
    expect(palace.getSource("notes.md")).toMatchObject({
      key: "notes.md",
      contentHash: "h1",
      drawerCount: 3,
    });
    const v2 = [
      { content: "alpha section", wing: "project", room: "planning", position: 0 },
      { content: "gamma section", wing: "project", room: "docs", position: 1 },
      { content: "delta section", wing: "project", room: "docs", position: 2 },
    ];
    expect(await palace.replaceSource("notes.md", "h2", v2)).toEqual({ added: 1, kept: 2, removed: 1 });
    const { drawers } = await palace.list({ source: "notes.md" });
    expect(drawers.map((drawer) => [drawer.content, drawer.room, drawer.position])).toEqual([
      ["alpha section", "planning", 0],
      ["gamma section", "docs", 1],
      ["delta section", "docs", 2],
    ]);
    expect(await vectorIds(palace)).toEqual(drawers.map((drawer) => drawer.id).sort());
    const moved = await palace.search("alpha", { room: "planning", mode: "vector" });
    expect(moved.map((hit) => hit.content)).toEqual(["alpha section"]);
    expect(palace.getSource("notes.md")).toMatchObject({ contentHash: "h2", drawerCount: 3 });
  });

  it("refuses a draft naming another source", async () => {
    const palace = await palaces.open();
    await expect(
      palace.replaceSource("a.md", "h", [{ content: "x", wing: "w", room: "r", source: "b.md" }]),
    ).rejects.toThrow('drafts[0].source: is "b.md", but the source being replaced is "a.md"');
  });

  it("with deferVectors leaves vectors in the write log until flush, which search and close do first", async () => {
    const palace = await palaces.open();
    const { db } = palaceCore(palace);
    const pending = () =>
      (db.prepare("SELECT COUNT(*) AS n FROM write_log WHERE applied_to_vectors = 0").get() as { n: number })
        .n;
    const drafts = ["alpha section", "beta section"].map((content, position) => ({
      content,
      wing: "project",
      room: "docs",
      position,
    }));
    const defer = { deferVectors: true };
    expect(await palace.replaceSource("a.md", "h1", drafts, undefined, defer)).toEqual({
      added: 2,
      kept: 0,
      removed: 0,
    });
    expect(pending()).toBe(2);
    expect(await vectorIds(palace)).toEqual([]);
    const hits = await palace.search("alpha", { mode: "vector", k: 1 });
    expect(hits.map((hit) => hit.content)).toEqual(["alpha section"]);
    expect(pending()).toBe(0);
    const ids = drafts.map((draft) => drawerId(draft));
    expect(await vectorIds(palace)).toEqual([...ids].sort());

    const gamma = { content: "gamma section", wing: "project", room: "docs" };
    await palace.replaceSource("b.md", "h1", [gamma], undefined, defer);
    expect(pending()).toBe(1);
    await palace.flush();
    expect(pending()).toBe(0);
    expect(await vectorIds(palace)).toEqual([...ids, drawerId(gamma)].sort());

    const delta = { content: "delta section", wing: "project", room: "docs" };
    await palace.replaceSource("c.md", "h1", [delta], undefined, defer);
    expect(pending()).toBe(1);
    await palace.close();
    const reopened = await palaces.open({}, palace.dir);
    const { db: again } = palaceCore(reopened);
    expect(again.prepare("SELECT COUNT(*) AS n FROM write_log WHERE applied_to_vectors = 0").get()).toEqual({
      n: 0,
    });
    expect(await vectorIds(reopened)).toEqual([...ids, drawerId(gamma), drawerId(delta)].sort());
  });
});

describe("the FTS rows carry each drawer's neighbours", () => {
  it("after filing one by one, deleting and moving, every row equals a full rebuild's", async () => {
    const palace = await palaces.open();
    const drafts = conversationDrafts("w", "chat", [
      ...TURNS,
      ["Melanie", "Good luck!"],
      ["Caroline", "Thanks."],
    ]);
    for (const index of [3, 0, 6, 1, 5, 2, 4]) await palace.file([drafts[index]!]);
    const { db, registry } = palaceCore(palace);
    // Each drawer's lexical row: FTS5's columns in SQLite; its length and terms in PostgreSQL.
    const dump = () =>
      db
        .prepare(
          TEST_STORE === "postgres"
            ? "SELECT d.drawer_rowid AS rowid, d.token_count, (SELECT string_agg(concat_ws(':', t.term, t.weight, t.tokens), ' ' ORDER BY t.term) FROM lexical_terms t WHERE t.drawer_rowid = d.drawer_rowid) AS terms FROM lexical_docs d ORDER BY d.drawer_rowid"
            : `SELECT rowid, * FROM ${LEXICAL_TABLE} ORDER BY rowid`,
        )
        .all();
    const rebuilt = () => {
      const before = dump();
      db.transaction(() => registry.rebuildLexical())();
      return [before, dump()];
    };
    let [incremental, full] = rebuilt();
    expect(incremental).toEqual(full);
    expect(incremental).toHaveLength(7);
    await palace.delete(drawerId(drafts[3]!));
    await palace.update(drawerId(drafts[0]!), { position: 10 });
    [incremental, full] = rebuilt();
    expect(incremental).toEqual(full);
    await palace.replaceSource("chat", "h", drafts.slice(2, 5).reverse());
    [incremental, full] = rebuilt();
    expect(incremental).toEqual(full);
    expect(incremental).toHaveLength(3);
    // Large batches take the whole-source path.
    const long = conversationDrafts(
      "w",
      "long",
      Array.from({ length: 80 }, (_, i) => ["S", `line ${i} word${i}`] as [string, string]),
    );
    await palace.file(long.filter((_, i) => i % 2 === 1));
    await palace.file(long.filter((_, i) => i % 2 === 0));
    [incremental, full] = rebuilt();
    expect(incremental).toEqual(full);
    await palace.replaceSource(
      "long",
      "h",
      long.slice(0, 70).filter((_, i) => i % 3 !== 0),
    );
    [incremental, full] = rebuilt();
    expect(incremental).toEqual(full);
    expect(incremental).toHaveLength(3 + 46);
  });
});

describe("drawer CRUD", () => {
  it("update moves a drawer and pins it, keeping its id; content edits are refused", async () => {
    const palace = await palaces.open();
    const { id } = (await palace.file([{ content: "Buy oat milk.", wing: "home", room: "general" }]))[0]!;
    const updated = await palace.update(id, { room: "shopping", pinned: true, metadata: { priority: 2 } });
    expect(updated).toMatchObject({ id, room: "shopping", pinned: true, metadata: { priority: 2 } });
    expect(
      (await palace.search("oat milk", { room: "shopping", mode: "vector" })).map((hit) => hit.id),
    ).toEqual([id]);
    expect(await palace.search("oat milk", { room: "general" })).toEqual([]);
    await expect(palace.update(id, { content: "Buy soy milk." } as never)).rejects.toThrow(
      "content: is part of the drawer's id and cannot be updated; delete the drawer and file the new text instead",
    );
    await expect(palace.update("d_missing", { room: "x" })).rejects.toThrow("No drawer has id d_missing");
  });

  it("delete removes the drawer, its FTS row and its vector", async () => {
    const palace = await palaces.open();
    const results = await palace.file(conversationDrafts("w", "s", TURNS));
    expect(await palace.delete(results[0]!.id)).toBe(true);
    expect(await palace.delete(results[0]!.id)).toBe(false);
    expect(await palace.get(results[0]!.id)).toBeUndefined();
    const hits = await palace.search("rescue cat Pixel", { mode: "bm25", k: 10 });
    expect(hits.map((hit) => hit.id)).not.toContain(results[0]!.id);
    // No FTS row (its own or a neighbour's context) still carries the deleted words.
    expect(await palace.search("rescue grey", { mode: "bm25", k: 10 })).toEqual([]);
    expect(await vectorIds(palace)).toEqual(
      results
        .slice(1)
        .map((result) => result.id)
        .sort(),
    );
  });

  it("list pages through drawers in filing order with filters", async () => {
    const palace = await palaces.open();
    const results = await palace.file(conversationDrafts("w", "s", TURNS));
    const first = await palace.list({ limit: 2 });
    expect(first.drawers.map((drawer) => drawer.id)).toEqual(results.slice(0, 2).map((result) => result.id));
    const second = await palace.list({ limit: 2, cursor: first.nextCursor });
    const third = await palace.list({ limit: 2, cursor: second.nextCursor });
    expect([...second.drawers, ...third.drawers].map((drawer) => drawer.id)).toEqual(
      results.slice(2).map((result) => result.id),
    );
    expect(third.nextCursor).toBeUndefined();
    const january2to3 = await palace.list({ timeRange: { from: "2024-01-02", to: "2024-01-03T00:00:00Z" } });
    expect(january2to3.drawers.map((drawer) => drawer.position)).toEqual([1, 2]);
    await expect(palace.list({ limit: 0 })).rejects.toThrow(
      "limit: must be an integer from 1 to 1000, got 0",
    );
  });

  it("taxonomy counts drawers by wing, room and hall", async () => {
    const palace = await palaces.open();
    await palace.file([
      { content: "a", wing: "w1", room: "r1" },
      { content: "b", wing: "w1", room: "r1", hall: "code" },
      { content: "c", wing: "w1", room: "r2" },
      { content: "d", wing: "w2", room: "r1" },
    ]);
    expect(await palace.taxonomy()).toEqual([
      {
        wing: "w1",
        count: 3,
        rooms: [
          { room: "r1", count: 2, halls: { code: 1, general: 1 } },
          { room: "r2", count: 1, halls: { general: 1 } },
        ],
      },
      { wing: "w2", count: 1, rooms: [{ room: "r1", count: 1, halls: { general: 1 } }] },
    ]);
  });

  it("checkDuplicate finds the same text by hash and near-duplicates by vector", async () => {
    const palace = await palaces.open();
    const { id } = (
      await palace.file([
        {
          content: "The deploy key lives in the team vault under infra/deploy.",
          wing: "ops",
          room: "secrets",
        },
      ])
    )[0]!;
    await palace.file([{ content: "Lunch is at noon on Fridays.", wing: "ops", room: "office" }]);
    const exact = await palace.checkDuplicate("The deploy key lives in the team vault under infra/deploy.");
    expect(exact.isDuplicate).toBe(true);
    expect(exact.matches.map((match) => [match.drawer.id, match.similarity, match.exact])).toEqual([
      [id, 1, true],
    ]);
    const near = await palace.checkDuplicate("The deploy key lives in the team vault under infra/deploy!!", {
      threshold: 0.8,
    });
    expect(near.matches.map((match) => [match.drawer.id, match.exact])).toEqual([[id, false]]);
    expect(near.matches[0]!.similarity).toBeGreaterThan(0.8);
    expect((await palace.checkDuplicate("Completely unrelated sentence about gardening.")).isDuplicate).toBe(
      false,
    );
    expect(
      (
        await palace.checkDuplicate("The deploy key lives in the team vault under infra/deploy.", {
          wing: "other",
        })
      ).isDuplicate,
    ).toBe(false);
  });
});

describe("search", () => {
  it("hybrid, bm25 and vector modes return verbatim drawers, best first", async () => {
    const palace = await palaces.open();
    const results = await palace.file(conversationDrafts("caroline", "chat-1", TURNS));
    for (const mode of ["hybrid", "bm25", "vector"] as const) {
      const hits = await palace.search("Which marathon is Caroline training for?", { mode, k: 3 });
      expect(hits[0]?.id, mode).toBe(results[4]!.id);
      expect(hits[0]?.content).toBe(TURNS[4]![1]);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    }
    const hybrid = await palace.search("Lisbon marathon", { k: 1 });
    expect(hybrid[0]?.ranks).toEqual({ bm25: 0, vector: 0 });
    expect(hybrid[0]?.score).toBe(1 / 11 + 0.2 / 11);
  });

  it("filters by wing, room, hall and time range in both legs", async () => {
    const palace = await palaces.open();
    await palace.file(conversationDrafts("caroline", "chat-1", TURNS));
    await palace.file([
      { content: "Caroline's marathon is in Lisbon.", wing: "notes", room: "sports", hall: "facts" },
    ]);
    for (const mode of ["hybrid", "bm25", "vector"] as const) {
      expect((await palace.search("marathon", { mode, wing: "notes" })).map((hit) => hit.wing)).toEqual([
        "notes",
      ]);
      expect((await palace.search("marathon", { mode, hall: "facts" })).map((hit) => hit.hall)).toEqual([
        "facts",
      ]);
      const early = await palace.search("Pixel cat sofa balcony marathon", {
        mode,
        wing: "caroline",
        timeRange: { from: "2024-01-02", to: "2024-01-03" },
      });
      expect(early.map((hit) => hit.position).sort()).toEqual(mode === "bm25" ? [1, 2] : [1, 2]);
    }
    await expect(palace.search("x", { timeRange: { from: "2024-05-01", to: "2024-01-01" } })).rejects.toThrow(
      "timeRange: timeRange: from (2024-05-01) is after to (2024-01-01); swap them",
    );
    await expect(palace.search("x", { k: 0 })).rejects.toThrow("k: must be an integer from 1 to 200, got 0");
    await expect(palace.search("  ")).rejects.toThrow("query: must be non-empty text");
  });

  it("a filtered vector search gives the same hits from the stored vectors, by over-fetching, by id filter and by Chroma's where", async () => {
    const palace = await palaces.open();
    const drafts = Array.from({ length: 60 }, (_, i) => ({
      // Distinct texts, so no two drawers tie in distance (ties may come back in any order).
      content: `${["gardens", "boats", "violins"][i % 3]} ${"and more ".repeat(i % 7)}week ${i} ${"x".repeat(i)}`,
      wing: `w${i % 3}`,
      room: `r${i % 2}`,
      timestamp: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
    }));
    await palace.file(drafts);
    const context = palaceCore(palace);
    const paths = {
      local: { maxIdFilter: 1, maxPostfilter: 1, maxLocalScope: 1_000 },
      overFetch: { maxIdFilter: 1, maxPostfilter: 1_000, maxLocalScope: 0 },
      ids: { maxIdFilter: 1_000, maxPostfilter: 1, maxLocalScope: 0 },
      where: { maxIdFilter: 1, maxPostfilter: 1, maxLocalScope: 0 },
    };
    for (const filter of [
      { wing: "w1" },
      { wing: "w1", room: "r0" },
      { timeRange: { from: "2024-01-20", to: "2024-02-10" } },
    ]) {
      const results = [];
      for (const vectorFilter of Object.values(paths)) {
        const { hits } = await hybridSearch({ ...context, vectorFilter }, "boats week", {
          ...filter,
          mode: "vector",
          k: 5,
        });
        results.push(hits.map((hit) => hit.id));
      }
      expect(results[0]).toHaveLength(5);
      expect(results[1]).toEqual(results[0]);
      expect(results[2]).toEqual(results[0]);
      expect(results[3]).toEqual(results[0]);
    }
  });

  it("expands hits with their neighbours in the source", async () => {
    const palace = await palaces.open();
    await palace.file(conversationDrafts("caroline", "chat-1", TURNS));
    const [hit] = await palace.search("sofa balcony", { k: 1, expandNeighbours: 2, mode: "bm25" });
    expect(hit?.position).toBe(2);
    expect(hit?.neighbours?.before.map((drawer) => drawer.position)).toEqual([0, 1]);
    expect(hit?.neighbours?.after.map((drawer) => drawer.position)).toEqual([3, 4]);
  });

  it("records access counts of hits", async () => {
    const palace = await palaces.open();
    const results = await palace.file(conversationDrafts("caroline", "chat-1", TURNS));
    await palace.search("Lisbon marathon", { k: 1 });
    await palace.search("Lisbon marathon", { k: 1 });
    await palace.search("Lisbon marathon", { k: 1, recordAccess: false });
    const drawer = await palace.get(results[4]!.id);
    expect(drawer?.accessCount).toBe(2);
    expect(drawer?.lastAccessed).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
});

describe("closing", () => {
  it("close is idempotent; later calls reject with ClosedError; await using closes", async () => {
    const dir = await palaces.dir();
    {
      await using palace = await openPalace(dir, { create: true, chromaUrl: await palaces.chromaUrl() });
      await palace.file([{ content: "kept", wing: "w", room: "r" }]);
    }
    const palace = await openPalace(dir, { chromaUrl: await palaces.chromaUrl() });
    expect((await palace.status()).drawers).toBe(1);
    await palace.close();
    await palace.close();
    await expect(palace.search("kept")).rejects.toBeInstanceOf(ClosedError);
    await expect(palace.file([{ content: "x", wing: "w", room: "r" }])).rejects.toBeInstanceOf(ClosedError);
    expect(() => palace.getSource("x")).toThrow(ClosedError);
  });

  it("with no chromaUrl the palace runs its own Chroma server on <dir>/chroma and stops it on close", async () => {
    const dir = await palaces.dir();
    const palace = await openPalace(dir, { create: true });
    await palace.file([{ content: "own server", wing: "w", room: "r" }]);
    expect((await palace.search("own server", { mode: "vector" }))[0]?.content).toBe("own server");
    await palace.close();
    const info = await readFile(join(dir, "chroma", "atrium-chroma.json"), "utf8").catch(() => undefined);
    expect(info).toBeUndefined();
  });
});
