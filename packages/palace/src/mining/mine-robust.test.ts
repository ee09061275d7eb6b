import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";
import { palaceCore } from "../core/palace-core.js";
import type { SqliteDatabase } from "../db/sqlite/sqlite-database.js";
import { MemoryDrawerSink } from "./memory-drawer-sink.js";
import { mine } from "./mine.js";
import type { MineOptions } from "./mine-types.js";
import { readRegularFile } from "./read-regular-file.js";

/**
 * Issue 25: what a mining run must survive. Devices and FIFOs are refused before anything is
 * read (each test has a timeout: the old code hung on a FIFO and read /dev/zero until memory ran
 * out); a conversation longer than one `replaceSource` call allows is filed in parts; one file's
 * failure never ends the run.
 */

const TURNS: MineOptions = { mode: "convos", wing: "me", chunking: "turn" };
const palaces = new TestPalaces();
const dirs: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "palace-mine-robust-"));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await palaces.cleanup();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A labelled transcript of `turns` lines, alternating two speakers. */
function transcript(turns: number): string {
  return Array.from(
    { length: turns },
    (_, at) =>
      `[2024-02-10 18:${String(at % 60).padStart(2, "0")}] ${at % 2 ? "Jonah" : "Imani"}: line ${at}`,
  ).join("\n");
}

describe("mine reads only regular files", () => {
  it("refuses /dev/zero naming it a character device, without reading it", { timeout: 10_000 }, async () => {
    await expect(mine(new MemoryDrawerSink(), "/dev/zero", TURNS)).rejects.toThrow(
      "not a regular file: /dev/zero is a character device; give a file or a folder of files to mine",
    );
  });

  it("refuses a symbolic link to /dev/zero the same way", { timeout: 10_000 }, async () => {
    const link = join(await tempDir(), "export.json");
    await symlink("/dev/zero", link);
    await expect(mine(new MemoryDrawerSink(), link, TURNS)).rejects.toThrow(
      `not a regular file: ${link} is a character device; give a file or a folder of files to mine`,
    );
  });

  it("refuses a FIFO instead of waiting for a writer", { timeout: 10_000 }, async () => {
    const fifo = join(await tempDir(), "session.jsonl");
    execFileSync("mkfifo", [fifo]);
    await expect(mine(new MemoryDrawerSink(), fifo, TURNS)).rejects.toThrow(
      `not a regular file: ${fifo} is a FIFO (named pipe); give a file or a folder of files to mine`,
    );
  });

  it("readRegularFile opens a FIFO without blocking and refuses it; reads at most the limit + 1", {
    timeout: 10_000,
  }, async () => {
    const dir = await tempDir();
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    await expect(readRegularFile(fifo, 100)).rejects.toThrow(
      `not a regular file: ${fifo} is a FIFO (named pipe)`,
    );
    await expect(readRegularFile("/dev/zero", 100)).rejects.toThrow(
      "not a regular file: /dev/zero is a character device",
    );
    const file = join(dir, "ten.txt");
    await writeFile(file, "0123456789");
    expect(await readRegularFile(file, 9)).toEqual({ tooLarge: true });
    expect(await readRegularFile(file, 10)).toEqual({ bytes: Buffer.from("0123456789") });
  });
});

describe("a long conversation is filed in parts", () => {
  it("files a conversation of more drafts than maxBatchDrafts in parts, skips it unchanged, drops parts it lost", async () => {
    const dir = await tempDir();
    const file = join(dir, "long.txt");
    await writeFile(file, transcript(5));
    const sink = new MemoryDrawerSink({ maxBatchDrafts: 2 });
    const first = await mine(sink, file, TURNS);
    expect(first).toMatchObject({ sources: 1, added: 5, errors: [] });
    expect(sink.sources().map((source) => [source.key, source.drawerCount])).toEqual([
      ["convo-part:me/long.txt#3", 1],
      ["convo-part:me/long.txt#2", 2],
      ["convo:me/long.txt", 2],
    ]);
    expect(await mine(sink, file, TURNS)).toMatchObject({ sources: 1, skipped: 1, added: 0, removed: 0 });
    expect(sink.sources()).toHaveLength(3);

    await writeFile(file, transcript(4));
    expect(await mine(sink, file, TURNS)).toMatchObject({ added: 0, kept: 4, removed: 1, errors: [] });
    expect(sink.sources().map((source) => source.key)).toEqual([
      "convo-part:me/long.txt#2",
      "convo:me/long.txt",
    ]);
    expect(sink.drawers().map((drawer) => drawer.content)).toEqual(["line 2", "line 3", "line 0", "line 1"]);
  });

  it("a real palace with maxBatchDrafts 3 files a 7-turn session and the files after it", async () => {
    const palace = await palaces.open({ limits: { maxBatchDrafts: 3 } });
    const dir = await tempDir();
    await mkdir(join(dir, "sessions"));
    await writeFile(join(dir, "sessions", "a-long.txt"), transcript(7));
    await writeFile(join(dir, "sessions", "b-short.txt"), transcript(2));
    const result = await mine(palace, dir, TURNS);
    expect(result).toMatchObject({ sources: 2, added: 9, errors: [] });
    const hits = await palace.list({ wing: "me", limit: 100 });
    expect(hits.drawers.map((drawer) => drawer.content).sort()).toEqual(
      [...Array.from({ length: 7 }, (_, at) => `line ${at}`), "line 0", "line 1"].sort(),
    );
    expect(await mine(palace, dir, TURNS)).toMatchObject({ sources: 2, skipped: 2, added: 0, removed: 0 });
  });
});

describe("source keys are namespaced by kind", () => {
  it("a conversation whose id is a project file's path in the same wing leaves the file's drawers alone", async () => {
    const palace = await palaces.open();
    const project = await tempDir();
    await writeFile(join(project, "notes.txt"), "The deploy key lives in the vault, shelf three.\n");
    expect(await mine(palace, project, { mode: "project", wing: "me" })).toMatchObject({ added: 1 });
    // A plain-text transcript's conversation id is its path relative to the mined folder.
    const convos = await tempDir();
    await writeFile(join(convos, "notes.txt"), transcript(4));
    expect(await mine(palace, convos, TURNS)).toMatchObject({ added: 4, removed: 0, errors: [] });
    expect(palace.listSources("").map((source) => source.key)).toEqual([
      "convo:me/notes.txt",
      "project:me/notes.txt",
    ]);
    const page = await palace.list({ source: "project:me/notes.txt" });
    expect(page.drawers.map((drawer) => drawer.content)).toEqual([
      "The deploy key lives in the vault, shelf three.",
    ]);
  });

  it("a palace from schema version 3 gets kinds on its keys, everywhere they are stored, and re-mines nothing", async () => {
    const dir = await palaces.dir();
    const project = await tempDir();
    await writeFile(join(project, "a.md"), "# Alpha\n\nalpha notes\n");
    const convos = await tempDir();
    await writeFile(join(convos, "chat.txt"), transcript(4));
    let palace = await palaces.open({}, dir);
    await mine(palace, project, { mode: "project", wing: "me" });
    await mine(palace, convos, TURNS);
    await palace.close();
    // Schema v3: the same rows with keys `<wing>/<id>`; one conversation recorded before origins.
    const db = new Database(join(dir, "palace.sqlite"));
    db.exec(`UPDATE sources SET key = substr(key, instr(key, ':') + 1);
      UPDATE sources SET origin = NULL WHERE key = 'me/chat.txt';
      UPDATE drawers SET source = substr(source, instr(source, ':') + 1) WHERE source IS NOT NULL;
      UPDATE drawer_sources SET source_key = substr(source_key, instr(source_key, ':') + 1);
      PRAGMA user_version = 3;`);
    db.close();

    palace = await palaces.open({}, dir);
    const { db: migrated } = palaceCore(palace);
    expect(palace.listSources("").map((source) => source.key)).toEqual([
      "convo:me/chat.txt",
      "project:me/a.md",
    ]);
    expect(migrated.prepare("SELECT DISTINCT source FROM drawers ORDER BY source").all()).toEqual([
      { source: "convo:me/chat.txt" },
      { source: "project:me/a.md" },
    ]);
    expect(
      migrated.prepare("SELECT DISTINCT source_key FROM drawer_sources ORDER BY source_key").all(),
    ).toEqual([{ source_key: "convo:me/chat.txt" }, { source_key: "project:me/a.md" }]);
    expect((migrated as SqliteDatabase).sqlite.pragma("user_version", { simple: true })).toBe(4);
    expect(await mine(palace, project, { mode: "project", wing: "me" })).toMatchObject({
      skipped: 1,
      added: 0,
    });
    expect(await mine(palace, convos, TURNS)).toMatchObject({ skipped: 1, added: 0, removed: 0 });
  });
});
