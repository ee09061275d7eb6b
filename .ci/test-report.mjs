// Reads what one package's test run wrote (tests/test-summary-reporter.ts) and the committed
// list of skips CI permits.
import { existsSync, readFileSync } from "node:fs";

/**
 * Counts of one package's run. A test skipped because its set-up failed counts as failed, and
 * is listed in `setupFailures`; `skipped` holds the deliberate skips, with ids "<package> > ...".
 */
export function readReport(file, packageName) {
  const counts = { passed: 0, failed: 0, skipped: [], setupFailures: [] };
  if (!existsSync(file)) return counts;
  for (const outcome of JSON.parse(readFileSync(file, "utf8"))) {
    const id = `${packageName} > ${outcome.id}`;
    if (outcome.state === "passed") counts.passed++;
    else if (outcome.state === "failed" || outcome.setupFailed) {
      counts.failed++;
      if (outcome.setupFailed) counts.setupFailures.push(id);
    } else counts.skipped.push({ id, note: outcome.note });
  }
  return counts;
}

/** `.ci/allowed-skips.txt`: one test id a line, then `  # why it may skip`; blank lines and `#` lines ignored. */
export function readAllowedSkips(file) {
  const allowed = new Map();
  if (!existsSync(file)) return allowed;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    const [id, ...why] = line.split("  # ");
    allowed.set(id.trim(), why.join("  # ").trim() || "no reason given");
  }
  return allowed;
}
