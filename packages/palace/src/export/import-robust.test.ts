import { execFile } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_STORE, TestPalaces } from "../../test/test-palaces.js";
import { palaceCore } from "../core/palace-core.js";
import { readPalaceConfig } from "../db/palace-dir.js";
import { mine } from "../mining/mine.js";
import { exportPalace } from "./export-palace.js";
import { importPalace } from "./import-palace.js";

/**
 * Issue 25: an import checks its header against a schema (the format an integer, settings taken
 * key by key), reads the file as a stream with the line limit enforced while reading, and a file
 * that is not there changes nothing.
 */

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

const HELPER = fileURLToPath(new URL("../../test/import-process.ts", import.meta.url));
const HEADER = { kind: "palace", format: 1, name: "old", embedding: "hashing-v1-384" };

async function exportFile(lines: unknown[]): Promise<string> {
  const file = join(await palaces.dir(), "export.jsonl");
  await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

describe("import checks the header", () => {
  it("takes only the integer 1 as the format, with the message for each mistake", async () => {
    const palace = await palaces.open();
    for (const [format, shown] of [
      [0, "0"],
      [-5, "-5"],
      ["1", '"1"'],
      [1.5, "1.5"],
      [null, "null"],
    ] as const) {
      const file = await exportFile([{ ...HEADER, format }]);
      await expect(importPalace(palace, file)).rejects.toThrow(
        `${file}:1.format: must be the integer 1 (the export format), got ${shown}; is this a palace export?`,
      );
    }
    const newer = await exportFile([{ ...HEADER, format: 2 }]);
    await expect(importPalace(palace, newer)).rejects.toThrow(
      `${newer}:1: export format 2 is newer than this @atrium/palace reads (1); upgrade @atrium/palace`,
    );
  });

  it("takes settings key by key: no unknown key, no __proto__, no string spread into keys, rooms checked", async () => {
    const palace = await palaces.open();
    const before = await readFile(palace.paths.config, "utf8");
    const proto = join(await palaces.dir(), "proto.jsonl");
    await writeFile(
      proto,
      `{"kind":"palace","format":1,"name":"x","embedding":"e","settings":{"__proto__":{"polluted":1}}}\n`,
    );
    await expect(importPalace(palace, proto)).rejects.toThrow(
      `${proto}:1.settings: "__proto__" is not a setting an import takes (it takes: rooms)`,
    );
    const spread = await exportFile([{ ...HEADER, settings: "abcdefghijklm" }]);
    await expect(importPalace(palace, spread)).rejects.toThrow(
      `${spread}:1.settings: must be an object of settings`,
    );
    const unknown = await exportFile([{ ...HEADER, settings: { embedding: "other", rooms: [] } }]);
    await expect(importPalace(palace, unknown)).rejects.toThrow(
      `${unknown}:1.settings: "embedding" is not a setting an import takes (it takes: rooms)`,
    );
    const badRooms = await exportFile([{ ...HEADER, settings: { rooms: [{ name: "billing" }] } }]);
    await expect(importPalace(palace, badRooms)).rejects.toThrow(
      `${badRooms}:1.settings.rooms: rooms config: 0: room "billing" needs keywords or paths to be chosen`,
    );
    expect(await readFile(palace.paths.config, "utf8")).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const rooms = [{ name: "billing", keywords: ["invoice"] }];
    await importPalace(palace, await exportFile([{ ...HEADER, settings: { rooms } }]));
    const config = await readPalaceConfig(palace.dir);
    expect(config.rooms).toEqual(rooms);
    expect(Object.keys(config).sort()).toEqual([
      "collection",
      "createdAt",
      "embedding",
      "format",
      "name",
      // A PostgreSQL palace names its database.
      ...(TEST_STORE === "postgres" ? ["postgres"] : []),
      "rooms",
    ]);
    // The palace's own rooms win over a later export's.
    await importPalace(
      palace,
      await exportFile([{ ...HEADER, settings: { rooms: [{ name: "x", keywords: ["y"] }] } }]),
    );
    expect((await readPalaceConfig(palace.dir)).rooms).toEqual(rooms);
  });

  it("refuses a file that is not there, or not a regular file, naming it", async () => {
    const palace = await palaces.open();
    const missing = join(await palaces.dir(), "nope.jsonl");
    await expect(importPalace(palace, missing)).rejects.toThrow(
      `${missing} does not exist; give a file written by \`atrium-palace export\``,
    );
    await expect(importPalace(palace, "/dev/zero")).rejects.toThrow(
      "/dev/zero: is a character device, not a regular file; give a file written by `atrium-palace export`",
    );
  });
});

describe("import streams the file", () => {
  it("refuses a 100 MB line without buffering it: the importing process stays under 200 MB, within 40 MB of a header-only import", {
    timeout: 120_000,
  }, async () => {
    const dir = await palaces.dir();
    const file = join(dir, "huge.jsonl");
    const out = createWriteStream(file);
    out.write(`${JSON.stringify(HEADER)}\n{"kind":"drawer","content":"`);
    const megabyte = "x".repeat(1024 * 1024);
    for (let at = 0; at < 100; at++) if (!out.write(megabyte)) await once(out, "drain");
    out.end('"}\n');
    await once(out, "close");
    const importing = async (target: string, from: string) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--conditions=@atrium/source", "--import", "tsx", HELPER, target, from, await palaces.chromaUrl()],
        { cwd: fileURLToPath(new URL("../..", import.meta.url)) },
      );
      return JSON.parse(stdout) as { error?: string; maxRssMb: number };
    };
    const small = join(dir, "small.jsonl");
    await writeFile(small, `${JSON.stringify(HEADER)}\n`);
    const baseline = await importing(join(dir, "baseline"), small);
    expect(baseline.error).toBeUndefined();
    const target = join(dir, "palace");
    const { error, maxRssMb } = await importing(target, file);
    expect(error).toBe(
      `${file}:2: is longer than maxImportLineBytes (1000000 bytes); it was not read further. Is this a palace export?`,
    );
    console.log(
      `import of a 100 MB line: peak RSS ${maxRssMb} MB (a header-only import: ${baseline.maxRssMb} MB)`,
    );
    // The old line reader buffered the line whole: 414 MB. Streaming, the line adds next to nothing.
    expect(maxRssMb).toBeLessThan(200);
    expect(maxRssMb - baseline.maxRssMb).toBeLessThan(40);
    // Nothing was filed.
    expect((await readdir(target)).sort()).toEqual(["chroma", "palace.json", "palace.sqlite"]);
  });
});

describe("an export from before source keys had kinds", () => {
  it("imports with kinds given to its keys, so mining it again re-files nothing", {
    timeout: 60_000,
  }, async () => {
    const project = await palaces.dir();
    await writeFile(join(project, "a.md"), "# Alpha\n\nalpha notes\n");
    const convos = await palaces.dir();
    await writeFile(join(convos, "chat.txt"), "Ana: hi\nBo: hello\nAna: bye\nBo: later\n");
    const original = await palaces.open();
    await mine(original, project, { mode: "project", wing: "me" });
    await mine(original, convos, { mode: "convos", wing: "me" });
    const file = join(await palaces.dir(), "export.jsonl");
    await exportPalace(original, file);
    // What an export written before schema v4 held: no sourceKinds, keys `<wing>/<id>`.
    const old = (await readFile(file, "utf8"))
      .replace(',"sourceKinds":true', "")
      .replaceAll('"project:me/', '"me/')
      .replaceAll('"convo:me/', '"me/');
    expect(old).not.toContain("project:me/");
    await writeFile(file, old);
    const copy = await palaces.open();
    await importPalace(copy, file);
    expect(copy.listSources("").map((source) => source.key)).toEqual([
      "convo:me/chat.txt",
      "project:me/a.md",
    ]);
    const sources = palaceCore(copy).db.prepare("SELECT DISTINCT source FROM drawers ORDER BY source").all();
    expect(sources).toEqual([{ source: "convo:me/chat.txt" }, { source: "project:me/a.md" }]);
    expect(await mine(copy, project, { mode: "project", wing: "me" })).toMatchObject({
      skipped: 1,
      added: 0,
    });
    expect(await mine(copy, convos, { mode: "convos", wing: "me" })).toMatchObject({ skipped: 1, added: 0 });
  });
});

describe("a drawer held by many sources", () => {
  it("exports its holders in rows within the line limit, and imports them all back", {
    timeout: 60_000,
  }, async () => {
    const limits = { maxImportLineBytes: 20_000 };
    const original = await palaces.open({ limits });
    // 60 sources with 400-character keys hold one license header: 25 KB of holders.
    const keys = Array.from(
      { length: 60 },
      (_, at) => `project:me/${"d".repeat(380)}/${String(at).padStart(3, "0")}.ts`,
    );
    for (const key of keys) {
      await original.replaceSource(key, "h", [
        { content: "MIT License", wing: "me", room: "code", position: 0 },
      ]);
    }
    const file = join(await palaces.dir(), "export.jsonl");
    await exportPalace(original, file);
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    expect(Math.max(...lines.map((line) => Buffer.byteLength(line)))).toBeLessThanOrEqual(20_000);
    expect(lines.filter((line) => line.startsWith('{"kind":"holders"')).length).toBe(3);
    const copy = await palaces.open({ limits });
    expect(await importPalace(copy, file)).toMatchObject({ drawers: 1, sources: 60 });
    const holders = (palace: typeof copy) => {
      const { registry, db } = palaceCore(palace);
      const { rowid } = db.prepare("SELECT rowid FROM drawers").get() as { rowid: number };
      return registry.holders(rowid);
    };
    expect(holders(copy)).toEqual(holders(original));
    expect(holders(copy)).toHaveLength(60);
  });
});
