import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script of .ci/, without type declarations
import { readAllowedSkips, readReport } from "../../.ci/test-report.mjs";

const dir = mkdtempSync(join(tmpdir(), "atrium-run-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("what npm test counts", () => {
  it("counts tests whose beforeAll failed as failed, and keeps deliberate skips apart", () => {
    const summary = join(dir, "summary.json");
    const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
    const run = spawnSync(
      process.execPath,
      [vitest, "run", "--config", join(import.meta.dirname, "fixtures/setup-failure/vitest.config.ts")],
      { env: { ...process.env, SUMMARY_FILE: summary, CI: "" }, encoding: "utf8" },
    );
    expect(run.status).toBe(1);
    const counts = readReport(summary, "@atrium/x");
    expect(counts).toEqual({
      passed: 1,
      failed: 3,
      skipped: [
        { id: "@atrium/x > cases.check.ts > plain > is skipped on purpose", note: undefined },
        {
          id: "@atrium/x > cases.check.ts > plain > skips itself",
          note: "needs qemu-system-x86 (apt-get install qemu-system-x86)",
        },
      ],
      setupFailures: [
        "@atrium/x > cases.check.ts > needs a corpus > reads a page",
        "@atrium/x > cases.check.ts > needs a corpus > greps",
      ],
    });
  }, 60_000);

  it("reads the allow-list of skips with the reason of each", () => {
    const file = join(dir, "allowed.txt");
    writeFileSync(
      file,
      "# comment\n\n@atrium/x > a.test.ts > needs kvm  # no /dev/kvm on CI\n@atrium/x > b.test.ts > other\n",
    );
    expect([...readAllowedSkips(file)]).toEqual([
      ["@atrium/x > a.test.ts > needs kvm", "no /dev/kvm on CI"],
      ["@atrium/x > b.test.ts > other", "no reason given"],
    ]);
  });
});
