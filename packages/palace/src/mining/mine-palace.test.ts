import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { TestPalaces } from "../../test/test-palaces.js";
import { palaceCore } from "../core/palace-core.js";
import type { Palace } from "../palace.js";
import { MemoryDrawerSink } from "./memory-drawer-sink.js";
import { mine } from "./mine.js";
import type { MineOptions } from "./mine-types.js";

const EXPORTS = fileURLToPath(new URL("../../test/fixtures/exports", import.meta.url));
const MINER = fileURLToPath(new URL("../../test/mine-process.ts", import.meta.url));
const TURNS: MineOptions = { mode: "convos", wing: "me", chunking: "turn" };
const palaces = new TestPalaces();
const stray: ChildProcess[] = [];

afterAll(async () => {
  for (const child of stray) if (child.exitCode === null) child.kill("SIGKILL");
  await palaces.cleanup();
});

async function registeredIds(palace: Palace): Promise<string[]> {
  const rows = palaceCore(palace).db.prepare("SELECT id FROM drawers ORDER BY id").all() as { id: string }[];
  return rows.map((row) => row.id);
}

describe("mine into a real palace", () => {
  it("files the same drawers as the in-memory sink, skips them on a second run, and finds them", async () => {
    const palace = await palaces.open();
    const memory = new MemoryDrawerSink();
    const expected = await mine(memory, EXPORTS, TURNS);
    expect(await mine(palace, EXPORTS, TURNS)).toEqual(expected);
    expect(await registeredIds(palace)).toEqual(
      memory
        .drawers()
        .map((drawer) => drawer.id)
        .sort(),
    );
    expect((await palaceCore(palace).index.ids()).sort()).toEqual(await registeredIds(palace));
    expect(await mine(palace, EXPORTS, TURNS)).toMatchObject({
      sources: 12,
      skipped: 12,
      added: 0,
      removed: 0,
    });

    const [hit] = await palace.search("how many weeks to train for a marathon", { wing: "me", k: 1 });
    expect(hit).toMatchObject({
      turnId: "n-2",
      room: "fitness",
      source: "convo:me/6632a1b0-1111-4000-8000-000000000001",
    });
  });

  it("kill -9 during mining, then run again: every drawer exactly once, nothing lost", async () => {
    const conversations = await palaces.dir();
    await writeTranscripts(conversations, 120);
    const clean = new MemoryDrawerSink();
    const cleanResult = await mine(clean, conversations, { ...TURNS, wing: "club" });
    expect(cleanResult).toMatchObject({ sources: 120, errors: [] });

    const dir = await palaces.dir();
    const miner = spawn(
      process.execPath,
      [
        "--conditions=@atrium/source",
        "--import",
        "tsx",
        MINER,
        dir,
        conversations,
        "club",
        await palaces.chromaUrl(),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    stray.push(miner);
    let stderr = "";
    miner.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      let out = "";
      miner.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (/filed 20\n/.test(out)) resolve();
      });
      miner.on("exit", (code) =>
        reject(new Error(`the miner exited (${code}) before filing 20 sources: ${stderr}`)),
      );
    });
    miner.kill("SIGKILL");
    await new Promise((resolve) => miner.once("exit", resolve));

    const palace = await palaces.open({}, dir);
    const before = (await registeredIds(palace)).length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(clean.drawers().length);
    const resumed = await mine(palace, conversations, { ...TURNS, wing: "club" });
    expect(resumed.sources).toBe(120);
    expect(resumed.skipped).toBeGreaterThanOrEqual(20);
    expect(resumed.added).toBe(clean.drawers().length - before);
    expect(resumed.errors).toEqual([]);
    const ids = await registeredIds(palace);
    expect(ids).toEqual(
      clean
        .drawers()
        .map((drawer) => drawer.id)
        .sort(),
    );
    expect((await palaceCore(palace).index.ids()).sort()).toEqual(ids);
  }, 120_000);
});

/** `count` short labelled transcripts, each a few turns, all different. */
async function writeTranscripts(dir: string, count: number): Promise<void> {
  const topics = [
    "the garden",
    "a marathon",
    "watercolours",
    "the new puppy",
    "a camping trip",
    "violin lessons",
  ];
  await mkdir(dir, { recursive: true });
  for (let index = 0; index < count; index++) {
    const topic = topics[index % topics.length];
    const lines = Array.from({ length: 8 }, (_, turn) =>
      turn % 2 === 0
        ? `Ana: Day ${index}, turn ${turn}: any news about ${topic}?`
        : `Ben: On day ${index} I spent turn ${turn} thinking about ${topic} and week ${(index + turn) % 52}.`,
    );
    await writeFile(join(dir, `chat-${String(index).padStart(3, "0")}.txt`), `${lines.join("\n")}\n`);
  }
}
