import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_STORE, TestPalaces } from "../../test/test-palaces.js";
import { palaceCore } from "../core/palace-core.js";
import type { DrawerDraft } from "../drawers/drawer.js";
import { drawerId } from "../drawers/drawer-id.js";
import { exportPalace } from "../export/export-palace.js";
import { importPalace } from "../export/import-palace.js";
import type { Palace } from "../palace.js";
import type { DrawerSink } from "./drawer-sink.js";
import { MemoryDrawerSink } from "./memory-drawer-sink.js";
import { mine } from "./mine.js";
import type { MineEvent } from "./mine-types.js";

/** Sources sharing drawers, and sources gone from where they were mined, on real palaces. */

const EXPORTS = fileURLToPath(new URL("../../test/fixtures/exports", import.meta.url));
const palaces = new TestPalaces();

afterAll(async () => {
  await palaces.cleanup();
});

const LICENSE = "Licensed under the MIT License; see LICENSE for the full text.";

function drafts(texts: string[]): DrawerDraft[] {
  return texts.map((content, position) => ({ content, wing: "shop", room: "code", position }));
}

async function registry(
  palace: Palace,
): Promise<{ id: string; source: string | null; position: number | null }[]> {
  return palaceCore(palace).db.prepare("SELECT id, source, position FROM drawers ORDER BY id").all() as {
    id: string;
    source: string | null;
    position: number | null;
  }[];
}

async function put(root: string, path: string, content: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

/** The same steps on any sink: the palace and the in-memory sink must agree exactly. */
async function sharedDrawerSteps(sink: DrawerSink) {
  return [
    await sink.replaceSource("a.ts", "a1", drafts(["alpha code", LICENSE])),
    await sink.replaceSource("b.ts", "b1", drafts([LICENSE, "beta code"])),
    // a.ts drops the license: b.ts still holds it.
    await sink.replaceSource("a.ts", "a2", drafts(["alpha code, edited"])),
    // b.ts drops it too: now it goes.
    await sink.replaceSource("b.ts", "b2", drafts(["beta code"])),
    await sink.removeSource("a.ts"),
    await sink.removeSource("a.ts"),
  ];
}

const SHARED_STEPS = [
  { added: 2, kept: 0, removed: 0 },
  { added: 1, kept: 1, removed: 0 },
  { added: 1, kept: 0, removed: 1 },
  { added: 0, kept: 1, removed: 1 },
  { found: true, removed: 1, kept: 0 },
  { found: false, removed: 0, kept: 0 },
];

describe("a drawer shared by sources", () => {
  it("stays while any source holds it, moving to the next holder; the memory sink agrees", async () => {
    const memory = new MemoryDrawerSink();
    expect(await sharedDrawerSteps(memory)).toEqual(SHARED_STEPS);
    const palace = await palaces.open();
    const license = drawerId({ content: LICENSE, wing: "shop" });

    await palace.replaceSource("a.ts", "a1", drafts(["alpha code", LICENSE]));
    await palace.replaceSource("b.ts", "b1", drafts([LICENSE, "beta code"]));
    await palace.replaceSource("a.ts", "a2", drafts(["alpha code, edited"]));
    // It moved to b.ts, at b.ts's position, and is still found.
    expect(await palace.get(license)).toMatchObject({ source: "b.ts", position: 0 });
    expect((await palace.search("MIT License", { k: 1, recordAccess: false }))[0]?.id).toBe(license);
    await palace.replaceSource("b.ts", "b2", drafts(["beta code"]));
    expect(await palace.get(license)).toBeUndefined();
    expect(await palace.removeSource("a.ts")).toEqual({ found: true, removed: 1, kept: 0 });
    expect(await palace.removeSource("a.ts")).toEqual({ found: false, removed: 0, kept: 0 });
    expect(palace.getSource("a.ts")).toBeUndefined();
    expect(palace.listSources("")).toMatchObject([{ key: "b.ts", contentHash: "b2", drawerCount: 1 }]);
    expect(await registry(palace)).toEqual([
      { id: drawerId({ content: "beta code", wing: "shop" }), source: "b.ts", position: 0 },
    ]);
    expect((await palaceCore(palace).index.ids()).sort()).toEqual(
      (await registry(palace)).map((row) => row.id),
    );

    // The same steps from the start, on a fresh palace: the same results as the memory sink.
    expect(await sharedDrawerSteps(await palaces.open())).toEqual(SHARED_STEPS);
  });

  it("a drawer also filed directly (no source) outlives every source", async () => {
    const palace = await palaces.open();
    const license = drawerId({ content: LICENSE, wing: "shop" });
    await palace.replaceSource("a.ts", "a1", drafts(["alpha code", LICENSE]));
    expect(await palace.file([{ content: LICENSE, wing: "shop", room: "notes" }])).toEqual([
      { id: license, created: false },
    ]);
    expect(await palace.removeSource("a.ts")).toEqual({ found: true, removed: 1, kept: 1 });
    const kept = await palace.get(license);
    expect([kept?.source, kept?.position, kept?.room]).toEqual([undefined, undefined, "code"]);
    const direct = await palace.file([{ content: "remember the tea", wing: "shop", room: "notes" }]);
    await palace.replaceSource("c.ts", "c1", drafts(["remember the tea"]));
    expect(await palace.replaceSource("c.ts", "c2", drafts(["other"]))).toEqual({
      added: 1,
      kept: 0,
      removed: 0,
    });
    expect(await palace.get(direct[0]!.id)).toMatchObject({ content: "remember the tea" });
  });
});

describe("export and import", () => {
  it("keep every holder of a shared drawer, the direct filing and the origins", async () => {
    const original = await palaces.open();
    const license = drawerId({ content: LICENSE, wing: "shop" });
    const tea = drawerId({ content: "remember the tea", wing: "shop" });
    await original.replaceSource(
      "a.ts",
      "a1",
      drafts(["alpha code", LICENSE, "remember the tea"]),
      "project:/p",
    );
    await original.replaceSource("b.ts", "b1", drafts(["beta code", LICENSE]), "project:/p");
    await original.file([{ content: "remember the tea", wing: "shop", room: "notes" }]);
    const file = join(await palaces.dir(), "export.jsonl");
    await exportPalace(original, file);
    const copy = await palaces.open();
    await importPalace(copy, file);
    expect(copy.listSources("")).toEqual(original.listSources(""));
    expect(await copy.replaceSource("a.ts", "a2", drafts(["alpha code"]))).toEqual({
      added: 0,
      kept: 1,
      removed: 0,
    });
    expect(await copy.get(license)).toMatchObject({ source: "b.ts", position: 1 });
    expect(await copy.get(tea)).toMatchObject({ content: "remember the tea" });
    expect(copy.getSource("a.ts")?.origin).toBe("project:/p");
  });
});

// An upgrade of an old palace.sqlite: only the SQLite store has one to upgrade.
const sqliteOnly = TEST_STORE === "sqlite" ? describe : () => {};

sqliteOnly("a palace from before drawer links", () => {
  it("is migrated: own drawers linked, a source that shared one re-filed by the next run", async () => {
    const project = await palaces.dir();
    await put(project, "a.txt", `alpha notes\n\n${LICENSE}\n`);
    await put(project, "b.txt", `beta notes\n\n${LICENSE}\n`);
    const dir = await palaces.dir();
    let palace = await palaces.open({}, dir);
    await mine(palace, project, { mode: "project", wing: "shop", limits: { maxChunkChars: 70 } });
    const shared = (await registry(palace)).filter(
      (row) => row.id === drawerId({ content: LICENSE, wing: "shop" }),
    );
    expect(shared).toEqual([
      { id: expect.any(String), source: "project:shop/a.txt", position: expect.any(Number) },
    ]);
    await palace.close();
    // What schema version 2 had: no link table, no origins, no direct flag, keys without a kind.
    const db = new Database(join(dir, "palace.sqlite"));
    db.exec(`DROP TRIGGER drawer_sources_removed; DROP TABLE drawer_sources; ALTER TABLE drawers DROP COLUMN filed_directly;
      ALTER TABLE sources DROP COLUMN origin; UPDATE sources SET key = substr(key, 9);
      UPDATE drawers SET source = substr(source, 9) WHERE source IS NOT NULL; PRAGMA user_version = 2;`);
    db.close();

    palace = await palaces.open({}, dir);
    expect(
      palace.listSources("project:shop/").map((source) => [source.key, source.contentHash === ""]),
    ).toEqual([
      ["project:shop/a.txt", false],
      ["project:shop/b.txt", true],
    ]);
    expect(palaceCore(palace).db.prepare("SELECT COUNT(*) AS n FROM drawer_sources").get()).toEqual({
      n: (await registry(palace)).length,
    });
    await mine(palace, project, { mode: "project", wing: "shop", limits: { maxChunkChars: 70 } });
    await put(project, "a.txt", "alpha notes only\n");
    await mine(palace, project, { mode: "project", wing: "shop", limits: { maxChunkChars: 70 } });
    expect(await palace.get(drawerId({ content: LICENSE, wing: "shop" }))).toMatchObject({
      source: "project:shop/b.txt",
    });
  });
});

describe("mining removes sources gone from where they were mined", () => {
  it("project: a deleted file's drawers go (shared ones stay); other roots and conversations stay", async () => {
    const project = await palaces.dir();
    await put(project, "a.txt", `alpha notes\n\n${LICENSE}\n`);
    await put(project, "b.txt", `beta notes\n\n${LICENSE}\n`);
    await put(project, "c.txt", "gamma notes\n");
    const other = await palaces.dir();
    await put(other, "d.txt", "delta notes\n");
    const palace = await palaces.open();
    const options = { mode: "project" as const, wing: "shop", limits: { maxChunkChars: 70 } };
    expect(await mine(palace, project, options)).toMatchObject({ sources: 3, added: 4, sourcesRemoved: 0 });
    await mine(palace, other, options);
    await mine(palace, join(EXPORTS, "claude-ai"), { mode: "convos", wing: "shop" });
    const before = palace.listSources("project:shop/").length;

    await rm(join(project, "a.txt"));
    await rm(join(project, "c.txt"));
    const events: MineEvent[] = [];
    const result = await mine(palace, project, { ...options, onProgress: (event) => events.push(event) });
    expect(result).toEqual({
      sources: 1,
      added: 0,
      kept: 0,
      removed: 2,
      sourcesRemoved: 2,
      skipped: 1,
      excluded: 0,
      errors: [],
    });
    expect(events.filter((event) => event.type === "source" && event.status === "removed")).toEqual([
      {
        type: "source",
        key: "project:shop/a.txt",
        file: "a.txt",
        status: "removed",
        added: 0,
        kept: 1,
        removed: 1,
      },
      {
        type: "source",
        key: "project:shop/c.txt",
        file: "c.txt",
        status: "removed",
        added: 0,
        kept: 0,
        removed: 1,
      },
    ]);
    expect(palace.listSources("project:shop/")).toHaveLength(before - 2);
    expect(await palace.get(drawerId({ content: LICENSE, wing: "shop" }))).toMatchObject({
      source: "project:shop/b.txt",
    });
    expect(
      (await palace.search("gamma", { wing: "shop", k: 20, recordAccess: false })).map((hit) => hit.content),
    ).not.toContain("gamma notes");
    expect((await palaceCore(palace).index.ids()).sort()).toEqual(
      (await registry(palace)).map((row) => row.id),
    );
    expect(await mine(palace, project, options)).toMatchObject({ skipped: 1, sourcesRemoved: 0, removed: 0 });
  }, 60_000);

  it("convos: a conversation deleted from the export file it was mined from goes; other files' stay", async () => {
    const exports = await palaces.dir();
    const file = join(exports, "claude.json");
    const [first] = JSON.parse(
      await readFile(join(EXPORTS, "claude-ai", "conversations.json"), "utf8"),
    ) as Record<string, unknown>[];
    // A second conversation like the first, with its own ids and words.
    const second = JSON.parse(
      JSON.stringify(first)
        .replaceAll("c1a0e7f2-0001", "c1a0e7f2-0099")
        .replaceAll("m-000", "m-990")
        .replaceAll("sourdough", "rye"),
    ) as Record<string, unknown>;
    await writeFile(file, JSON.stringify([first, second]));
    const palace = await palaces.open();
    const options = { mode: "convos" as const, wing: "me", chunking: "turn" as const };
    expect(await mine(palace, file, options)).toMatchObject({ sources: 2, errors: [] });
    await mine(palace, join(EXPORTS, "chatgpt"), options);
    const keys = palace.listSources("convo:me/").map((source) => source.key);
    const goneKey = `convo:me/${String(second.uuid)}`;
    const dropped = await palace.list({ source: goneKey });
    expect(dropped.drawers).toHaveLength(3);

    await writeFile(file, JSON.stringify([first]));
    const events: MineEvent[] = [];
    const result = await mine(palace, file, { ...options, onProgress: (event) => events.push(event) });
    expect(result).toEqual({
      sources: 1,
      added: 0,
      kept: 0,
      removed: 3,
      sourcesRemoved: 1,
      skipped: 1,
      excluded: 0,
      errors: [],
    });
    expect(events.filter((event) => event.type === "source" && event.status === "removed")).toEqual([
      { type: "source", key: goneKey, file: "claude.json", status: "removed", added: 0, kept: 0, removed: 3 },
    ]);
    expect(palace.listSources("convo:me/").map((source) => source.key)).toEqual(
      keys.filter((key) => key !== goneKey),
    );
    expect(await palace.list({ source: goneKey })).toEqual({ drawers: [] });
    expect((await palaceCore(palace).index.ids()).sort()).toEqual(
      (await registry(palace)).map((row) => row.id),
    );

    // A file that no longer reads whole (here: its one entry is no conversation) removes nothing.
    await writeFile(file, JSON.stringify([{ uuid: "x" }]));
    expect(await mine(palace, file, options)).toMatchObject({ sources: 0, sourcesRemoved: 0, removed: 0 });
    expect(palace.listSources("convo:me/")).toHaveLength(keys.length - 1);
  }, 60_000);
});
