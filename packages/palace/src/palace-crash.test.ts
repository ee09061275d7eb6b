import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../test/test-palaces.js";
import { palaceCore } from "./core/palace-core.js";
import type { SqliteDatabase } from "./db/sqlite/sqlite-database.js";
import { openPalace } from "./open-palace.js";
import type { Palace } from "./palace.js";

const WRITER = fileURLToPath(new URL("../test/palace-writer-process.ts", import.meta.url));
const palaces = new TestPalaces();
const stray: number[] = [];
afterAll(async () => {
  for (const pid of stray) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  await palaces.cleanup();
});

function startWriter(args: string[]): {
  child: ChildProcess;
  filed: (n: number) => Promise<void>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ["--conditions=@atrium/source", "--import", "tsx", WRITER, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters: { n: number; resolve: () => void }[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    const counts = [...out.matchAll(/filed (\d+)/g)].map((match) => Number(match[1]));
    const latest = counts[counts.length - 1] ?? 0;
    for (const waiter of waiters.filter((w) => latest >= w.n)) waiter.resolve();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      if (code !== 0 && code !== null)
        process.stderr.write(`writer ${args.join(" ")} failed:\n${err}\n${out}\n`);
      resolve(code);
    });
  });
  return {
    child,
    exit,
    filed: (n) =>
      new Promise((resolve, reject) => {
        waiters.push({ n, resolve });
        void exit.then((code) => reject(new Error(`writer exited (${code}) before filing ${n}: ${err}`)));
      }),
  };
}

/** The registry's ids, Chroma's ids, and SQLite's own integrity verdict. */
async function consistency(palace: Palace) {
  const { db, index } = palaceCore(palace);
  const registered = (db.prepare("SELECT id FROM drawers ORDER BY id").all() as { id: string }[]).map(
    (row) => row.id,
  );
  return {
    registered,
    indexed: (await index.ids()).sort(),
    integrity: (db as SqliteDatabase).sqlite.pragma("integrity_check", { simple: true }),
    fts: (db.prepare("SELECT COUNT(*) AS n FROM drawers_fts").get() as { n: number }).n,
  };
}

describe("crash and concurrency", () => {
  it("kill -9 mid-filing, then reopen: consistent; a re-run ends with every drawer exactly once", async () => {
    const dir = await palaces.dir();
    const chromaUrl = await palaces.chromaUrl();
    for (const mode of ["file", "mine"]) {
      const wing = `crash-${mode}`;
      const writer = startWriter([dir, wing, "2000", "100", mode, chromaUrl]);
      await writer.filed(300);
      writer.child.kill("SIGKILL");
      expect(await writer.exit).toBeNull();
      const palace = await openPalace(dir, { chromaUrl });
      const after = await consistency(palace);
      expect(after.integrity).toBe("ok");
      expect(after.indexed).toEqual(after.registered);
      expect(after.fts).toBe(after.registered.length);
      await palace.close();
      const rerun = startWriter([dir, wing, "2000", "100", mode, chromaUrl]);
      expect(await rerun.exit).toBe(0);
    }
    const palace = await openPalace(dir, { chromaUrl });
    const final = await consistency(palace);
    expect(final.registered).toHaveLength(4000);
    expect(final.indexed).toEqual(final.registered);
    expect(final.fts).toBe(4000);
    expect((await palace.status()).pendingVectors).toBe(0);
    await palace.close();
  }, 180_000);

  it("two processes filing into one palace (its own Chroma server, shared) at once: consistent counts, no corruption", async () => {
    const dir = await palaces.dir();
    // Both file the wing "both" too: the same drafts from two writers must end up once.
    const writers = [
      startWriter([dir, "alpha", "1500", "100", "file"]),
      startWriter([dir, "beta", "1500", "50", "mine"]),
      startWriter([dir, "both", "600", "100", "file"]),
      startWriter([dir, "both", "600", "100", "mine"]),
    ];
    expect(await Promise.all(writers.map((writer) => writer.exit))).toEqual([0, 0, 0, 0]);
    const palace = await openPalace(dir);
    try {
      const state = await consistency(palace);
      expect(state.integrity).toBe("ok");
      expect(state.registered).toHaveLength(3600);
      expect(state.indexed).toEqual(state.registered);
      expect(state.fts).toBe(3600);
      expect((await palace.taxonomy()).map((wing) => [wing.wing, wing.count])).toEqual([
        ["alpha", 1500],
        ["beta", 1500],
        ["both", 600],
      ]);
      expect((await palace.status()).pendingVectors).toBe(0);
    } finally {
      await palace.close();
    }
    const info = await readFile(join(dir, "chroma", "atrium-chroma.json"), "utf8").catch(() => undefined);
    if (info) stray.push((JSON.parse(info) as { pid: number }).pid);
    expect(info).toBeUndefined();
  }, 180_000);
});
