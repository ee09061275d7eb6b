// The demo's command line as a user runs it (a child process, sources through tsx): a question on
// a small corpus copy ingests it, prints the step trace and an answer citing an .mdx page, says the
// model is scripted and exits 0; and Ctrl-C in the middle of a question leaves no process behind,
// checked by PID (the CLI, its Chroma server, anything else in its process group).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";

const DEMO_DIR = fileURLToPath(new URL("../../apps/demo", import.meta.url));

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runDemo(args: string[]): Run {
  const child = spawn(
    process.execPath,
    ["--conditions=@atrium/source", "--import", "tsx", "src/main.ts", ...args],
    {
      cwd: DEMO_DIR,
      // Its own process group, as a terminal gives a foreground job, so Ctrl-C can reach the group.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ATRIUM_MODEL: "", NO_COLOR: "1" },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("npm run demo (the CLI)", () => {
  let docsDir: string;
  const dataDirs: string[] = [];
  const runs: Run[] = [];
  const start = (args: string[]) => {
    const run = runDemo(args);
    runs.push(run);
    return run;
  };
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-demo-data-"));
    dataDirs.push(dir);
    return dir;
  };

  beforeAll(() => {
    docsDir = corpusCopy(SOME_PAGES);
  });
  afterAll(() => {
    for (const run of runs)
      if (run.child.exitCode === null && run.child.signalCode === null)
        process.kill(-run.child.pid!, "SIGKILL");
    removeDirs(docsDir, ...dataDirs);
  });

  it("answers a question citing an .mdx page, says the model is scripted, and exits 0", async () => {
    const run = start([
      "--corpus",
      docsDir,
      "--data",
      dataDir(),
      "-q",
      "How do I host my documentation on a custom domain?",
    ]);
    const { code } = await run.exited;
    expect(run.stderr()).not.toMatch(/^demo:/m);
    expect(code).toBe(0);
    const out = run.stdout();
    expect(out).toContain("Model: scripted (no ATRIUM_MODEL set).");
    expect(out).toMatch(/^Docs: first ingest of .+: 9 pages \(9 added, 0 changed, 0 removed\) in [\d.]+ s$/m);
    expect(out).toContain("  $ cat '/customize/custom-domain.mdx'");
    expect(out).toContain("    source: /customize/custom-domain.mdx ✓\n");
    expect(out).toContain("That was the scripted model.");
  }, 120_000);

  it("prints at most 20 lines a question by default (the demo's own five, with memory), all of it with --verbose", async () => {
    const data = dataDir();
    const compact = start(["--corpus", docsDir, "--data", data]);
    expect(await compact.exited).toEqual({ code: 0, signal: null });
    const verbose = start(["--corpus", docsDir, "--data", data, "--verbose"]);
    expect(await verbose.exited).toEqual({ code: 0, signal: null });
    const short = linesPerQuestion(compact.stdout());
    const long = linesPerQuestion(verbose.stdout());
    expect(short).toHaveLength(5);
    expect(long).toHaveLength(5);
    for (const lines of short) expect(lines).toBeLessThanOrEqual(20);
    // Each question still shows its steps and its answer, and --verbose shows more of every one.
    for (const [i, lines] of short.entries()) {
      expect(lines).toBeGreaterThanOrEqual(5);
      expect(long[i]!).toBeGreaterThan(lines);
    }
    expect(compact.stdout().match(/^ {2}Answer: /gm)).toHaveLength(5);
    expect(verbose.stdout().match(/^ {2}━━ Answer ━━$/gm)).toHaveLength(5);
    expect(verbose.stdout()).toContain("  │ const terms = [");
    expect(compact.stdout()).not.toContain("  │ const terms = [");
  }, 240_000);

  it("Ctrl-C during a question stops it and leaves no process behind", async () => {
    const data = dataDir();
    const run = start([
      "--corpus",
      docsDir,
      "--data",
      data,
      "-q",
      "How do I host my documentation on a custom domain?",
    ]);
    await until(() => run.stdout().includes("━━ Step 1 ━━"), 90_000, "the first step");
    const chroma = JSON.parse(readFileSync(join(data, "chroma", "atrium-chroma.json"), "utf8")) as {
      pid: number;
    };
    expect(alive(chroma.pid)).toBe(true);
    // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group.
    process.kill(-run.child.pid!, "SIGINT");
    const exit = await run.exited;
    expect(exit).toEqual({ code: 130, signal: null });
    expect(run.stderr()).toContain(
      "demo: interrupted; stopped the question in flight and the Chroma server\n",
    );
    await until(() => !alive(chroma.pid), 10_000, `the Chroma server (pid ${chroma.pid}) to exit`);
    await until(() => !alive(-run.child.pid!), 10_000, "every process of the demo's group to exit");
  }, 120_000);
});

/**
 * The lines each question takes in the demo's output: from the blank line before its "❓" line to
 * the line before the next question's blank line (the last one: before "That was the scripted
 * model.").
 */
function linesPerQuestion(stdout: string): number[] {
  const lines = stdout.split("\n");
  const starts = lines.flatMap((line, i) => (line.startsWith("❓ ") ? [i] : []));
  const end = lines.findIndex((line) => line.startsWith("That was the scripted model."));
  return starts.map((start, k) => (starts[k + 1] ?? end) - start);
}
