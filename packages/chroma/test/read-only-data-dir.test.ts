import { execFileSync } from "node:child_process";
import { chmodSync, readdirSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectChroma, startChromaServer } from "../src/index.js";
import { makeTempDir } from "./server-helpers.js";

/** Every file under `dir` with its size and modification time: what "never written" compares. */
function fingerprint(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      const { size, mtimeMs } = statSync(path);
      return `${relative(dir, path)} ${size} ${mtimeMs}`;
    })
    .sort();
}

/**
 * A data dir this process cannot write. Root ignores file modes, so as root it is a read-only
 * bind mount (as a read-only volume would be); any other user gets its write bits removed.
 */
function makeReadOnly(source: string, mountPoint: string): { dir: string; undo: () => void } {
  if (process.getuid?.() !== 0) {
    execFileSync("chmod", ["-R", "a-w", source]);
    return { dir: source, undo: () => execFileSync("chmod", ["-R", "u+w", source]) };
  }
  execFileSync("mount", ["--bind", source, mountPoint]);
  execFileSync("mount", ["-o", "remount,bind,ro", mountPoint]);
  return { dir: mountPoint, undo: () => execFileSync("umount", [mountPoint]) };
}

describe("a read-only data dir", () => {
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let readOnly: { dir: string; undo: () => void } | undefined;

  beforeAll(async () => {
    temp = await makeTempDir("chroma-ro-");
    const source = join(temp.dir, "data");
    const server = await startChromaServer({ path: source });
    try {
      const client = await connectChroma(server.url);
      const collection = await client.createCollection({ name: "notes", embeddingFunction: null });
      await collection.add({
        ids: ["a", "b"],
        documents: ["alpha", "beta"],
        embeddings: [
          [1, 0],
          [0, 1],
        ],
      });
    } finally {
      await server.stop();
    }
    await mkdir(join(temp.dir, "mounted"));
    readOnly = makeReadOnly(source, join(temp.dir, "mounted"));
  }, 60_000);

  afterAll(async () => {
    try {
      readOnly?.undo();
    } finally {
      chmodSync(temp.dir, 0o700);
      await temp?.remove();
    }
  });

  it("is read from a private copy when the caller only reads, and is never written", async () => {
    const dir = readOnly!.dir;
    const before = fingerprint(dir);
    const server = await startChromaServer({ path: dir, readOnly: true });
    try {
      expect(server.dataDir).toBe(dir);
      expect(server.servedDir.startsWith(join(tmpdir(), "atrium-chroma-readonly-"))).toBe(true);
      const client = await connectChroma(server.url);
      const collection = await client.getCollection({ name: "notes" });
      expect(await collection.get({ ids: ["a", "b"] })).toMatchObject({ documents: ["alpha", "beta"] });
    } finally {
      await server.stop();
    }
    expect(readdirSync(tmpdir()).includes(server.servedDir.slice(tmpdir().length + 1))).toBe(false);
    expect(fingerprint(dir)).toEqual(before);
  }, 60_000);

  it("is an error that says so when the caller would write", async () => {
    const dir = readOnly!.dir;
    await expect(startChromaServer({ path: dir })).rejects.toThrow(
      `The Chroma data dir ${dir} is read-only for this process, and writing to it (ingest) needs write access. ` +
        "Give this user write access, or open it only to read (readOnly: true; atrium-docs sh and mcp do).",
    );
  });
});
