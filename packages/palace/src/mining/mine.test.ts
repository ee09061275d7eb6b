import { appendFile, cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AbortError, LimitError } from "@atrium/spec";
import { afterEach, describe, expect, it } from "vitest";
import type { DrawerDraft } from "../drawers/drawer.js";
import { isPalaceError } from "../errors.js";
import type { DrawerSink, RemoveSourceResult, ReplaceSourceResult, SourceRecord } from "./drawer-sink.js";
import { MemoryDrawerSink } from "./memory-drawer-sink.js";
import { mine } from "./mine.js";
import type { MineEvent, MineOptions } from "./mine-types.js";

const EXPORTS = fileURLToPath(new URL("../../test/fixtures/exports", import.meta.url));
const temporary: string[] = [];

async function copyOfExports(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "palace-mine-"));
  temporary.push(dir);
  await cp(EXPORTS, dir, { recursive: true });
  return dir;
}

afterEach(async () => {
  await Promise.all(temporary.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const TURNS: MineOptions = { mode: "convos", wing: "me", chunking: "turn" };

const FIXTURE_ERRORS = [
  {
    file: "claude-ai/conversations.json",
    position: "$[1].chat_messages[2]",
    message: 'unknown sender "system" (expected "human" or "assistant"); skipped',
  },
  {
    file: "claude-ai/conversations.json",
    position: "$[2]",
    message: 'not a conversation (no "chat_messages" array); skipped',
  },
  {
    file: "malformed/broken-export.json",
    position: "line 7, column 44",
    message: "invalid JSON: unexpected '\"'",
  },
  {
    file: "malformed/cut-off-session.jsonl",
    position: "line 3, column 138",
    message: "invalid JSON; the line was skipped",
  },
];

describe("mine (conversations)", () => {
  it("defers each source's vectors and flushes every maxUnflushedDrafts drafts and at the end", async () => {
    const sink = new MemoryDrawerSink();
    const result = await mine(sink, EXPORTS, { ...TURNS, limits: { maxUnflushedDrafts: 10 } });
    expect(result.added).toBe(33);
    // 13: the source that crossed 10 is filed whole before the flush.
    expect(sink.flushes()).toEqual([13, 10, 10]);
    await mine(sink, EXPORTS, { ...TURNS, limits: { maxUnflushedDrafts: 10 } });
    expect(sink.flushes()).toEqual([13, 10, 10]);
  });

  it("mines every export in a folder, naming the files and positions it could not read", async () => {
    const sink = new MemoryDrawerSink();
    const result = await mine(sink, EXPORTS, TURNS);
    expect(result).toEqual({
      sources: 12,
      added: 33,
      kept: 0,
      removed: 0,
      sourcesRemoved: 0,
      skipped: 0,
      excluded: 3,
      errors: FIXTURE_ERRORS,
    });
    expect(sink.drawers()).toHaveLength(33);
    expect(new Set(sink.drawers().map((drawer) => drawer.id)).size).toBe(33);
  });

  it("files drafts with the turn ids, speakers, times and metadata of the export", async () => {
    const sink = new MemoryDrawerSink();
    await mine(sink, join(EXPORTS, "chatgpt/conversations.json"), TURNS);
    const key = "convo:me/6632a1b0-1111-4000-8000-000000000001";
    expect(sink.drawers().filter((drawer) => drawer.source === key)).toEqual([
      {
        id: expect.stringMatching(/^d_[0-9a-f]{24}$/),
        content: "I want to run my first marathon in October. How many weeks of training do I need?",
        wing: "me",
        room: "fitness",
        hall: "conversations",
        source: key,
        position: 0,
        speaker: "user",
        turnId: "n-2",
        sessionId: "6632a1b0-1111-4000-8000-000000000001",
        timestamp: "2024-05-01T08:00:00.500Z",
        metadata: {
          format: "chatgpt",
          file: "conversations.json",
          conversation: "6632a1b0-1111-4000-8000-000000000001",
          title: "Marathon training plan",
        },
      },
      {
        id: expect.stringMatching(/^d_[0-9a-f]{24}$/),
        content:
          "Plan for 16 to 20 weeks if you already run three times a week.\n\nBuild the long run by about 10% a week and taper for the last three weeks.",
        wing: "me",
        room: "fitness",
        hall: "conversations",
        source: key,
        position: 1,
        speaker: "assistant",
        turnId: "n-5b",
        sessionId: "6632a1b0-1111-4000-8000-000000000001",
        timestamp: "2024-05-01T08:00:30.000Z",
        metadata: {
          format: "chatgpt",
          file: "conversations.json",
          conversation: "6632a1b0-1111-4000-8000-000000000001",
          title: "Marathon training plan",
        },
      },
    ]);
  });

  it("skips what is unchanged, re-files only a changed conversation", async () => {
    const dir = await copyOfExports();
    const sink = new MemoryDrawerSink();
    await mine(sink, dir, TURNS);
    expect(await mine(sink, dir, TURNS)).toEqual({
      sources: 12,
      added: 0,
      kept: 0,
      removed: 0,
      sourcesRemoved: 0,
      skipped: 12,
      excluded: 3,
      errors: FIXTURE_ERRORS,
    });
    await appendFile(join(dir, "plain-text/book-club.txt"), "Imani: See you Thursday then.\n");
    const events: MineEvent[] = [];
    const result = await mine(sink, dir, { ...TURNS, onProgress: (event) => events.push(event) });
    expect(result).toMatchObject({ sources: 12, added: 1, kept: 4, removed: 0, skipped: 11 });
    expect(events.filter((event) => event.type === "source" && event.status !== "unchanged")).toEqual([
      {
        type: "source",
        key: "convo:me/plain-text/book-club.txt",
        file: "plain-text/book-club.txt",
        status: "changed",
        added: 1,
        kept: 4,
        removed: 0,
      },
    ]);
    expect(sink.drawers()).toHaveLength(34);
  });

  it("re-files everything when the chunking changes, removing the old drawers", async () => {
    const sink = new MemoryDrawerSink();
    await mine(sink, join(EXPORTS, "claude-code"), TURNS);
    const result = await mine(sink, join(EXPORTS, "claude-code"), { ...TURNS, chunking: "exchange" });
    expect(result).toMatchObject({ sources: 1, added: 2, kept: 0, removed: 4, skipped: 0 });
    expect(sink.drawers().map((drawer) => [drawer.turnId, drawer.metadata?.turnIds])).toEqual([
      ["u-0002", "u-0002,u-0003,u-0007"],
      ["u-0009", undefined],
    ]);
  });

  it("is resumable: a run killed after some sources, run again, ends as one clean run", async () => {
    const clean = new MemoryDrawerSink();
    await mine(clean, EXPORTS, TURNS);

    const survivor = new MemoryDrawerSink();
    const dying = new DyingSink(survivor, 5);
    await expect(mine(dying, EXPORTS, TURNS)).rejects.toBeInstanceOf(LimitError);
    expect(survivor.sources()).toHaveLength(5);
    const filedBeforeDeath = survivor.drawers().length;
    expect(filedBeforeDeath).toBeGreaterThan(0);
    const resumed = await mine(survivor, EXPORTS, TURNS);
    expect(resumed).toMatchObject({ sources: 12, skipped: 5, added: 33 - filedBeforeDeath, removed: 0 });
    const ids = (sink: MemoryDrawerSink) =>
      sink
        .drawers()
        .map((drawer) => drawer.id)
        .sort();
    expect(ids(survivor)).toEqual(ids(clean));
  });

  it("goes on past a source the sink refuses, reporting it", async () => {
    const sink = new RefusingSink(new MemoryDrawerSink(), "convo:me/book-club.txt");
    const result = await mine(sink, join(EXPORTS, "plain-text"), TURNS);
    expect(result.sources).toBe(2);
    expect(result.added).toBe(4);
    expect(result.errors).toEqual([
      { file: "book-club.txt", message: "could not be filed (convo:me/book-club.txt): disk full" },
    ]);
  });

  it("reads a file as the format it is told", async () => {
    const sink = new MemoryDrawerSink();
    const result = await mine(sink, join(EXPORTS, "plain-text/meeting-notes.txt"), {
      ...TURNS,
      format: "plain-text",
    });
    expect(result).toMatchObject({ sources: 1, added: 2, excluded: 0, errors: [] });
    const forced = await mine(new MemoryDrawerSink(), join(EXPORTS, "claude-ai/conversations.json"), {
      ...TURNS,
      format: "slack",
    });
    expect(forced.errors).toEqual([
      { file: "conversations.json", position: "$[0]", message: 'not a Slack message (no "ts"); skipped' },
      { file: "conversations.json", position: "$[1]", message: 'not a Slack message (no "ts"); skipped' },
      { file: "conversations.json", position: "$[2]", message: 'not a Slack message (no "ts"); skipped' },
    ]);
  });

  it("stops between sources when aborted, keeping what was filed", async () => {
    const controller = new AbortController();
    const sink = new MemoryDrawerSink();
    const run = mine(sink, EXPORTS, {
      ...TURNS,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === "source" && sink.sources().length === 3) controller.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    expect(sink.sources()).toHaveLength(3);
  });

  it("refuses bad options and a missing path with messages that say what to do", async () => {
    const sink = new MemoryDrawerSink();
    await expect(mine(sink, EXPORTS, { ...TURNS, mode: "chats" as never })).rejects.toThrow(
      'mode: must be "convos" or "project", got "chats"',
    );
    await expect(mine(sink, EXPORTS, { ...TURNS, wing: " " })).rejects.toThrow(
      "wing: must be non-empty text",
    );
    await expect(mine(sink, EXPORTS, { ...TURNS, format: "whatsapp" as never })).rejects.toThrow(
      'format: must be one of claude-ai, chatgpt, claude-code, codex, slack, plain-text, got "whatsapp"',
    );
    await expect(mine(sink, EXPORTS, { ...TURNS, chunking: "session" as never })).rejects.toThrow(
      'chunking: must be "turn" or "exchange", got "session"',
    );
    await expect(
      mine(sink, join(EXPORTS, "chatgpt/conversations.json"), { mode: "project", wing: "w" }),
    ).rejects.toThrow("is a file; --mode project mines a folder (use --mode convos for an export file)");
    await expect(mine(sink, EXPORTS, { ...TURNS, limits: { maxChunkChars: 0 } })).rejects.toThrow(
      "@atrium/palace mining limit maxChunkChars must be a positive integer, got 0",
    );
    const missing = await mine(sink, join(EXPORTS, "nope"), TURNS).catch((error: unknown) => error);
    expect(isPalaceError(missing, "palace/not-found")).toBe(true);
    expect((missing as Error).message).toBe(
      `${join(EXPORTS, "nope")} does not exist; give the folder or export file to mine`,
    );
    expect(sink.sources()).toEqual([]);
  });

  it("stops at maxFiles with a message naming the limit", async () => {
    await expect(
      mine(new MemoryDrawerSink(), EXPORTS, { ...TURNS, limits: { maxFiles: 3 } }),
    ).rejects.toThrow(
      `${EXPORTS} holds more than 3 files to mine (maxFiles); mine a subfolder, add a .gitignore, or raise limits.maxFiles`,
    );
  });
});

/** A sink whose process "dies" (a fatal error nothing catches) on the call after `lives` sources. */
class DyingSink implements DrawerSink {
  #lives: number;
  constructor(
    readonly inner: DrawerSink,
    lives: number,
  ) {
    this.#lives = lives;
  }
  getSource(key: string): SourceRecord | undefined {
    return this.inner.getSource(key);
  }
  listSources(prefix: string): SourceRecord[] {
    return this.inner.listSources(prefix);
  }
  async replaceSource(
    key: string,
    hash: string,
    drafts: DrawerDraft[],
    origin?: string,
  ): Promise<ReplaceSourceResult> {
    if (this.#lives-- <= 0) throw new LimitError("process", "killed");
    return this.inner.replaceSource(key, hash, drafts, origin);
  }
  removeSource(key: string): Promise<RemoveSourceResult> {
    return this.inner.removeSource(key);
  }
}

/** A sink that fails one source with an ordinary (non-fatal) error, as a full disk would. */
class RefusingSink implements DrawerSink {
  constructor(
    readonly inner: DrawerSink,
    readonly refused: string,
  ) {}
  getSource(key: string): SourceRecord | undefined {
    return this.inner.getSource(key);
  }
  listSources(prefix: string): SourceRecord[] {
    return this.inner.listSources(prefix);
  }
  async replaceSource(
    key: string,
    hash: string,
    drafts: DrawerDraft[],
    origin?: string,
  ): Promise<ReplaceSourceResult> {
    if (key === this.refused) throw new Error("disk full");
    return this.inner.replaceSource(key, hash, drafts, origin);
  }
  removeSource(key: string): Promise<RemoveSourceResult> {
    return this.inner.removeSource(key);
  }
}
