// Issue 26, item 4: `npm run demo` as the README gives it, through npm from the repository's root.
// The root script went through `pnpm --filter @atrium/demo start`, so `--help` printed pnpm's
// help, and every error and Ctrl-C ended in pnpm's `[ELIFECYCLE] … failed` lines. Now the
// demo's usage, its own message and exit code, and a quiet 130 on Ctrl-C.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USAGE } from "../../apps/demo/src/cli/cli-args.ts";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";
import { alive, until } from "./demo-web-process.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** What pnpm or npm adds when a script fails or is interrupted, and pnpm's help. */
const PACKAGE_MANAGER_NOISE = /ELIFECYCLE|ERR_PNPM|Usage: pnpm|npm error|npm ERR|Lifecycle script/;

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function npmRunDemo(args: string[]): Run {
  const child = spawn("npm", ["run", "demo", "--", ...args], {
    cwd: ROOT,
    // Its own process group, as a terminal gives a foreground job, so Ctrl-C can reach the group.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ATRIUM_MODEL: "", NO_COLOR: "1" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/**
 * npm's own echo of the script (`> demo`, `> exec bash .ci/demo.sh …`) and its blank lines,
 * removed (npm leaves it out when its log level is silent).
 */
function withoutNpmBanner(stdout: string, args: string[]): string {
  const banner = `\n> demo\n> exec bash .ci/demo.sh ${args.join(" ")}\n\n`;
  return stdout.startsWith(banner) ? stdout.slice(banner.length) : stdout;
}

describe("npm run demo from the repository's root", () => {
  const runs: Run[] = [];
  const start = (args: string[]) => {
    const run = npmRunDemo(args);
    runs.push(run);
    return run;
  };
  let docsDir: string;
  let dataDir: string;

  beforeAll(() => {
    docsDir = corpusCopy(SOME_PAGES);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-data-"));
  });
  afterAll(() => {
    for (const run of runs)
      if (run.child.exitCode === null && run.child.signalCode === null)
        process.kill(-run.child.pid!, "SIGKILL");
    removeDirs(docsDir, dataDir);
  });

  for (const flag of ["--help", "-h"]) {
    it(`npm run demo -- ${flag} prints the demo's usage and exits 0`, async () => {
      const run = start([flag]);
      expect(await run.exited).toEqual({ code: 0, signal: null });
      expect(withoutNpmBanner(run.stdout(), [flag])).toBe(`${USAGE}\n`);
      expect(run.stdout().split("\n")).toContain("Usage: npm run demo -- [options]");
      expect(run.stderr()).not.toMatch(PACKAGE_MANAGER_NOISE);
    }, 120_000);
  }

  it("a bad flag gives the demo's message and exit 2, without package-manager lines", async () => {
    const run = start(["--bogus"]);
    expect(await run.exited).toEqual({ code: 2, signal: null });
    expect(withoutNpmBanner(run.stdout(), ["--bogus"])).toBe("");
    expect(run.stderr()).toContain(
      `demo: unknown option "--bogus"; the options are below (--help prints them)\n\n${USAGE}\n`,
    );
    // The demo's message is the last thing printed.
    expect(run.stderr().endsWith(`${USAGE}\n`)).toBe(true);
    expect(run.stderr()).not.toMatch(PACKAGE_MANAGER_NOISE);
  }, 120_000);

  it("Ctrl-C during a question exits 130 with the demo's line and no package-manager noise", async () => {
    const question = "How do I host my documentation on a custom domain?";
    const run = start(["--corpus", docsDir, "--data", dataDir, "--no-memory", "-q", question]);
    await until(() => /Step 1\b/.test(run.stdout()), 150_000, "the first step of the question");
    // What a terminal does on Ctrl-C: SIGINT to every process of the foreground group.
    process.kill(-run.child.pid!, "SIGINT");
    expect(await run.exited).toEqual({ code: 130, signal: null });
    expect(run.stderr()).toContain(
      "demo: interrupted; stopped the question in flight and the Chroma server\n",
    );
    expect(run.stderr()).not.toMatch(PACKAGE_MANAGER_NOISE);
    expect(run.stdout()).not.toMatch(PACKAGE_MANAGER_NOISE);
    await until(() => !alive(-run.child.pid!), 10_000, "every process of the demo's group to exit");
  }, 180_000);
});
