import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import { countTokens } from "gpt-tokenizer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs } from "../../../../tests/test-target.ts";
import { TINY_LOCOMO } from "../../bench/locomo/tiny-locomo.fixture.js";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
const EXPORTS = join(PACKAGE_DIR, "test/fixtures/exports");
const TRANSCRIPT = join(EXPORTS, "claude-code/5d3c1e2a-7b8f-4c1d-9e0a-123456789abc.jsonl");

interface Run {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

/** The real CLI in a child process: sources through tsx, or the installed bin (test-target.ts). */
function atriumPalace(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cliArgs(PACKAGE_DIR), ...args], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (exitCode) => resolve({ stdout, stderr, exitCode }));
    child.stdin.end(options.input ?? "");
  });
}

const ok = (stdout: string): Run => ({ stdout, stderr: "", exitCode: 0 });
const failed = (stderr: string): Run => ({ stdout: "", stderr, exitCode: 1 });

// Each command is a fresh Node process that loads the palace and opens SQLite and Chroma: seconds each.
const CLI_TEST_MS = 240_000;

describe("atrium-palace", { timeout: CLI_TEST_MS }, () => {
  let root: string;
  let server: ChromaServer;
  let dir: string;
  /** ATRIUM_PALACE names the palace; one Chroma server (ATRIUM_CHROMA_URL) serves every palace here. */
  let env: Record<string, string>;
  const run = (args: string[], input?: string) =>
    atriumPalace(args, { env, ...(input === undefined ? {} : { input }) });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "atrium-palace-cli-"));
    server = await startChromaServer({ path: join(root, "chroma") });
    dir = join(root, "home");
    env = { ATRIUM_PALACE: dir, ATRIUM_CHROMA_URL: server.url };
  });

  afterAll(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it("init creates the palace $ATRIUM_PALACE names, and refuses to make it twice", async () => {
    expect(await run(["init", "--identity", "I am Dana, a pilot who keeps notes."])).toEqual(
      ok(`created palace home in ${dir} (embedding hashing-v1-384)\n`),
    );
    expect(await run(["init"])).toEqual(
      failed(
        `atrium-palace init: ${dir} is already a palace (it has palace.json); open it with openPalace() or \`atrium-palace status ${dir}\`\n`,
      ),
    );
  });

  it("mine files an export, its summary on stderr; a malformed file is named with its position, the rest mined, exit 1", async () => {
    const dirOf = join(EXPORTS, "claude-code");
    expect(await run(["mine", dirOf, "--mode", "convos", "--wing", "shop"])).toEqual({
      stdout: "",
      stderr: [
        `mining 1 files from ${dirOf} (convos)`,
        "100% 1/1 files  2 drawers added  0 unchanged  5d3c1e2a-7b8f-4c1d-9e0a-123456789abc.jsonl",
        "mined: 1 sources, 2 drawers added, 0 kept, 0 removed, 0 unchanged, 0 files left out",
        "",
      ].join("\n"),
      exitCode: 0,
    });
    // Again, with --json: the result on stdout, nothing on stderr, the source unchanged.
    const again = await run(["mine", dirOf, "--mode", "convos", "--wing", "shop", "--json"]);
    expect(again).toMatchObject({ stderr: "", exitCode: 0 });
    expect(JSON.parse(again.stdout)).toMatchObject({ sources: 1, added: 0, skipped: 1, errors: [] });
    const malformed = join(EXPORTS, "malformed");
    expect(await run(["mine", malformed, "--mode", "convos", "--wing", "junk"])).toEqual({
      stdout: "",
      stderr: [
        `mining 2 files from ${malformed} (convos)`,
        `error: broken-export.json: line 7, column 44: invalid JSON: unexpected '"'`,
        " 50% 1/2 files  0 drawers added  0 unchanged  1 errors  broken-export.json",
        "error: cut-off-session.jsonl: line 3, column 138: invalid JSON; the line was skipped",
        "100% 2/2 files  1 drawers added  0 unchanged  2 errors  cut-off-session.jsonl",
        "mined: 1 sources, 1 drawers added, 0 kept, 0 removed, 0 unchanged, 0 files left out, 2 errors",
        "",
      ].join("\n"),
      exitCode: 1,
    });
  });

  it("search --json prints ids, scores and metadata; without it, each hit's verbatim text", async () => {
    const json = await run([
      "search",
      "parseOrderDate fails on Monday",
      "-k",
      "1",
      "--wing",
      "shop",
      "--json",
    ]);
    expect(json.exitCode).toBe(0);
    const [hit, ...rest] = JSON.parse(json.stdout) as { id: string; score: number; content: string }[];
    expect(rest).toEqual([]);
    expect(hit).toMatchObject({
      id: expect.stringMatching(/^d_[0-9a-f]{24}$/),
      wing: "shop",
      room: "testing",
      hall: "conversations",
      turnId: "u-0002",
      sessionId: "5d3c1e2a-7b8f-4c1d-9e0a-123456789abc",
      timestamp: "2025-01-14T10:00:05.000Z",
      metadata: { format: "claude-code", title: "Fix flaky date parsing test" },
      ranks: { bm25: 0, vector: 0 },
    });
    const content = hit?.content ?? "";
    expect(content.startsWith("user: The test for parseOrderDate fails every Monday.")).toBe(true);
    expect(await run(["search", "parseOrderDate fails on Monday", "-k", "1", "--wing", "shop"])).toEqual(
      ok(
        `#1 ${hit?.id}  shop/testing  2025-01-14T10:00:05.000Z  score ${hit?.score.toFixed(4)}\n${content}\n`,
      ),
    );
    expect(await run(["search", "parseOrderDate", "--wing", "nobody"])).toEqual(ok("no matches\n"));
  });

  it("kg add, query, timeline, invalidate and stats", async () => {
    const added = await run(["kg", "add", "Dana", "flies", "Cessna 172", "--from", "2021-06", "--json"]);
    const { triple } = JSON.parse(added.stdout) as { triple: { id: string } };
    expect(added.exitCode).toBe(0);
    expect(await run(["kg", "query", "--subject", "dana"])).toEqual(
      ok(`${triple.id}  Dana — flies → Cessna 172 (since 2021-06)\n`),
    );
    expect(await run(["kg", "add", "Dana", "flies", "Cessna 172", "--from", "2021-06"])).toEqual(
      ok(`already known ${triple.id}  Dana — flies → Cessna 172 (since 2021-06)\n`),
    );
    expect(await run(["kg", "invalidate", "Dana", "flies", "Cessna 172", "--at", "2024-02"])).toEqual(
      ok(`ended ${triple.id}  Dana — flies → Cessna 172 (2021-06 – 2024-02)\n`),
    );
    expect(await run(["kg", "timeline", "Cessna 172"])).toEqual(
      ok(`${triple.id}  Dana — flies → Cessna 172 (2021-06 – 2024-02)\n`),
    );
    expect(await run(["kg", "stats"])).toEqual(
      ok(
        [
          "entities   2 (0 aliases)",
          "facts      1 (0 open, 1 ended)",
          "predicates 1",
          "most used  flies 1",
          "",
        ].join("\n"),
      ),
    );
    expect(await run(["kg", "invalidate", triple.id])).toEqual(
      failed(
        `atrium-palace kg invalidate: Fact ${triple.id} (Dana — flies → Cessna 172 (2021-06 – 2024-02)) already ended at 2024-02; nothing to invalidate\n`,
      ),
    );
  });

  it("status says what the palace holds", async () => {
    expect(await run(["status"])).toEqual(
      ok(
        [
          `palace     home (${dir})`,
          "embedding  hashing-v1-384",
          "drawers    3 in 2 wings, 2 rooms (0 pinned)",
          "sources    2 mined",
          "facts      1 (0 open) about 2 entities",
          "vectors    in sync",
          "",
        ].join("\n"),
      ),
    );
  });

  it("wake-up starts with the identity and stays within its budget", async () => {
    const woken = await run(["wake-up", "--budget", "40"]);
    expect(woken.exitCode).toBe(0);
    expect(woken.stdout.startsWith("I am Dana, a pilot who keeps notes.\n")).toBe(true);
    expect(countTokens(woken.stdout.replace(/\n$/, ""))).toBeLessThanOrEqual(40);
  });

  it("hook claude-code files the session's transcript silently, in the project's wing", async () => {
    const input = JSON.stringify({
      session_id: "5d3c1e2a-7b8f-4c1d-9e0a-123456789abc",
      transcript_path: TRANSCRIPT,
      hook_event_name: "Stop",
      cwd: "/home/dev/webshop",
    });
    expect(await run(["hook", "claude-code"], input)).toEqual(ok(""));
    expect(await run(["hook", "claude-code"], input.replace("Stop", "PreCompact"))).toEqual(ok(""));
    const found = await run(["search", "parseOrderDate", "--wing", "webshop", "--json", "-k", "5"]);
    expect((JSON.parse(found.stdout) as { wing: string }[]).map((hit) => hit.wing)).toEqual([
      "webshop",
      "webshop",
    ]);
    expect(await run(["hook", "claude-code"], "{ transcript_path: oops")).toEqual(
      failed(
        `atrium-palace hook: stdin is not the hook's JSON (Expected property name or '}' in JSON at position 2); Claude Code sends {"transcript_path": ..., "hook_event_name": ...} (see atrium-palace hook --help)\n`,
      ),
    );
    expect(
      await run(
        ["hook", "claude-code"],
        JSON.stringify({ hook_event_name: "SessionStart", transcript_path: TRANSCRIPT }),
      ),
    ).toEqual(
      failed(
        'atrium-palace hook: hook_event_name is "SessionStart"; this hook files transcripts on Stop and PreCompact only (see atrium-palace hook --help)\n',
      ),
    );
  });

  it("export then import into a new palace gives identical search results; repair finds nothing to fix", async () => {
    const file = join(root, "palace.jsonl");
    expect(await run(["export", file])).toEqual(
      ok(`exported 5 drawers, 3 sources, 3 knowledge-graph rows to ${file}\n`),
    );
    const copy = join(root, "copy");
    expect(await run(["import", file, "--palace", copy])).toEqual(
      ok(`imported 5 drawers (0 already there), 3 sources, 3 knowledge-graph rows from ${file}\n`),
    );
    const [original, imported] = await Promise.all([
      run(["search", "the date parser and UTC", "--json"]),
      run(["search", "the date parser and UTC", "--json", "--palace", copy]),
    ]);
    const ranked = (text: string) =>
      (JSON.parse(text) as { id: string; score: number; content: string }[]).map(
        ({ id, score, content }) => ({
          id,
          score,
          content,
        }),
      );
    expect(ranked(original.stdout)).toHaveLength(5);
    expect(ranked(imported.stdout)).toEqual(ranked(original.stdout));
    expect((await readFile(file, "utf8")).split("\n")[0]).toMatch(/^\{"kind":"palace"/);
    expect(await run(["repair", "--palace", copy])).toEqual(
      ok("0 pending writes applied, 0 vectors added, 0 removed, 5 keyword rows rebuilt\n"),
    );
  });

  it("bench locomo --json prints the bench rows of any file in LoCoMo's format", async () => {
    const file = join(root, "tiny-locomo.json");
    await writeFile(file, JSON.stringify(TINY_LOCOMO));
    const bench = await atriumPalace(["bench", "locomo", file, "--json"]);
    expect(bench.exitCode).toBe(0);
    const rows = JSON.parse(bench.stdout) as {
      metric: string;
      value: number;
      unit: string;
      baseline?: string;
    }[];
    expect(rows.filter((row) => row.baseline === "plain-bm25").map((row) => row.metric)).toEqual([
      "locomo.turn_recall_at_5",
      "locomo.turn_recall_at_10",
      "locomo.session_recall_any_at_5",
      "locomo.tokens_at_10",
    ]);
    expect(rows.at(-1)).toEqual({ metric: "locomo.questions", value: 3, unit: "questions" });
    expect(bench.stderr).toContain("filed 5 drawers into palace tiny-1");
  });

  it("bad input that reaches the palace: an error naming the problem on stderr, exit 1, no stack", async () => {
    const nowhere = join(root, "nowhere");
    const [badTime, notAPalace, top] = await Promise.all([
      run(["search", "x", "--from", "last week"]),
      run(["status", "--palace", nowhere]),
      run(["--help"]),
    ]);
    expect(badTime).toEqual(
      failed(
        'atrium-palace search: timeRange: timeRange.from: "last week" is not an ISO 8601 time; write e.g. 2024-05-01 or 2024-05-01T09:30:00Z\n',
      ),
    );
    expect(notAPalace).toEqual(
      failed(
        `atrium-palace status: ${nowhere} is not a palace (no palace.json); create one with \`atrium-palace init ${nowhere}\` or initPalace()\n`,
      ),
    );
    expect(top.exitCode).toBe(0);
    expect(top.stdout).toContain(
      "Every command takes --palace DIR; without it the palace is $ATRIUM_PALACE, else ~/.atrium/palace.",
    );
  });
});

describe("atrium-palace with the palace's own Chroma server", { timeout: CLI_TEST_MS }, () => {
  it("init, mine and search start (and stop) the server in DIR/chroma", async () => {
    const root = await mkdtemp(join(tmpdir(), "atrium-palace-own-"));
    const env = { ATRIUM_CHROMA_URL: "", ATRIUM_PALACE: "" };
    try {
      const palace = join(root, "p");
      expect(await atriumPalace(["init", palace], { env })).toEqual(
        ok(`created palace p in ${palace} (embedding hashing-v1-384)\n`),
      );
      const mined = await atriumPalace(
        ["mine", TRANSCRIPT, "--mode", "convos", "--wing", "shop", "--palace", palace],
        {
          env,
        },
      );
      expect(mined.exitCode).toBe(0);
      const found = await atriumPalace(["search", "UTC", "--palace", palace, "--json"], { env });
      expect((JSON.parse(found.stdout) as { turnId: string }[]).map((hit) => hit.turnId)).toEqual([
        "u-0002",
        "u-0009",
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
