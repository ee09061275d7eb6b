// Issue 26, item 3: the first `npm run demo` looked hung: after "installing pnpm", a silent
// `pnpm install` ran for minutes. Set-up now says what it installs and how long each step took,
// shows pnpm's progress (on stderr: the demo's own output stays alone on stdout), is quiet when
// there is nothing to do, and the demo's set-up leaves the test suites' packages to `npm test`'s.
// This runs .ci/setup.sh in a fresh clone of HEAD (committed files only), sharing this machine's
// pnpm store, so it downloads nothing already downloaded.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PNPM_VERSION = "12.4.2";

function setup(cwd: string, ...args: string[]) {
  const env = { ...process.env };
  // Outside CI (CI=true installs with a frozen lockfile and always shows pnpm's lines).
  delete env.CI;
  const result = spawnSync("bash", [".ci/setup.sh", ...args], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 300_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** System packages are this host's business (all there, or named as missing by a non-root run). */
const SYSTEM_PACKAGES = /^setup: (missing system packages|apt-get install|system packages installed)/;

/** The set-up's own lines about npm packages, with the seconds each step took replaced by N. */
function setupLines(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("setup: ") && !SYSTEM_PACKAGES.test(line))
    .map((line) => line.replace(/ in \d+ s$/, " in N s"));
}

describe("set-up on a fresh clone", () => {
  let clone: string;

  beforeAll(() => {
    clone = join(mkdtempSync(join(tmpdir(), "atrium-setup-")), "atrium");
    const cloned = spawnSync("git", ["clone", "-q", ROOT, clone], { encoding: "utf8" });
    expect(cloned.stderr).toBe("");
  });
  afterAll(() => rmSync(join(clone, ".."), { recursive: true, force: true }));

  it("the demo's set-up says what it installs, shows pnpm's progress, and installs no test suite", () => {
    const first = setup(clone);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("");
    expect(setupLines(first.stderr)).toEqual([
      `setup: installing pnpm@${PNPM_VERSION} into .tools/ (npm install) …`,
      `setup: pnpm@${PNPM_VERSION} installed in N s`,
      "setup: the demo's npm packages (pnpm install; a few minutes on a fresh clone) …",
      "setup: the demo's npm packages installed in N s",
      "setup: done in N s",
    ]);
    // pnpm's progress, line by line without a terminal.
    expect(first.stderr).toMatch(/^Progress: resolved \d+, reused \d+, downloaded \d+, added \d+, done$/m);
    // The demo's packages are there; the cross-package suites' (a browser driver) are not.
    expect(existsSync(join(clone, "apps", "demo", "node_modules", "@atrium", "agent"))).toBe(true);
    expect(existsSync(join(clone, "tests", "node_modules"))).toBe(false);
  }, 300_000);

  it("is quiet when everything is there", () => {
    const again = setup(clone);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("");
    expect(again.stderr.split("\n").filter((line) => line && !SYSTEM_PACKAGES.test(line))).toEqual([]);
  }, 300_000);

  it("the test set-up adds the whole workspace, then the demo's stays quiet", () => {
    const test = setup(clone, "test");
    expect(test.code).toBe(0);
    expect(setupLines(test.stderr)).toEqual([
      "setup: the workspace's npm packages (pnpm install; a few minutes on a fresh clone) …",
      "setup: the workspace's npm packages installed in N s",
      "setup: done in N s",
    ]);
    expect(existsSync(join(clone, "tests", "node_modules", "playwright-core"))).toBe(true);
    const demo = setup(clone);
    expect(demo.code).toBe(0);
    expect(setupLines(demo.stderr)).toEqual([]);
    // The demo's install left the suites' packages in place.
    expect(existsSync(join(clone, "tests", "node_modules", "playwright-core"))).toBe(true);
  }, 300_000);

  it("refuses an unknown mode, naming the ones there are", () => {
    const wrong = setup(clone, "tests");
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe(
      'setup: unknown mode "tests"; use demo, test or bench (bash .ci/setup.sh test)\n',
    );
  });
});
