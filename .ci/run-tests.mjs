// Runs every package's tests through turbo, then prints one closing line over all of them
// ("Tests: N passed, N failed, N skipped") read from the JSON report each vitest run writes.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const workspaces = ["packages", "apps"].flatMap((dir) =>
  readdirSync(join(root, dir)).map((name) => join(root, dir, name)),
);
workspaces.push(join(root, "tests"));
const reports = workspaces.map((dir) => join(dir, ".vitest", "report.json"));
for (const report of reports) rmSync(report, { force: true });

const turbo = spawnSync(
  "pnpm",
  ["exec", "turbo", "run", "test", "--concurrency=1", "--continue", ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: "inherit",
  },
);

let passed = 0;
let failed = 0;
let skipped = 0;
for (const report of reports) {
  if (!existsSync(report)) continue;
  const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = JSON.parse(
    readFileSync(report, "utf8"),
  );
  passed += numPassedTests;
  failed += numFailedTests;
  skipped += numPendingTests + numTodoTests;
}
const status = turbo.status ?? 1;
if (status !== 0 && failed === 0) failed = 1; // a suite that crashed before reporting still fails the run
console.log(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(status);
