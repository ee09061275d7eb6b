// Runs every workspace's tests, one package at a time, then prints how long each took, every
// skipped test, and one closing line over all of them ("Tests: N passed, N failed, N skipped"),
// read from the JSON report each vitest run writes.
//
//   node .ci/run-tests.mjs                 every workspace listed in pnpm-workspace.yaml
//   node .ci/run-tests.mjs agent chromafs  only these (folder or package names)
//   ATRIUM_TEST_TARGET=dist node .ci/run-tests.mjs microvm   only the built pass (below)
//
// Under CI=true a skipped test fails the run unless .ci/allowed-skips.txt lists it, the release
// dry run (.ci/release-dry-run.mjs) runs first, and the built pass runs after the sources: what
// ships, tested once. It checks that every file the built code reads at run time is in its
// tarball (.ci/runtime-files.mjs), publishes HEAD's packed tarballs to a local registry
// (.ci/local-registry.mjs: Verdaccio on loopback, started and stopped here), installs them from it
// by name with npm into one project (.ci/installed-packages.mjs), and runs each workspace's
// `test:built` script (its CLI,
// worker, MCP-server and end-to-end files) with ATRIUM_TEST_TARGET=dist, so those tests start the
// installed bins and import the installed packages' dist (tests/test-target.ts).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, delimiter, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { startWithHeadPublished } from "./local-registry.mjs";
import { readAllowedSkips, readReport } from "./test-report.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const ci = process.env.CI === "true";
const env = {
  ...process.env,
  PATH: [join(root, ".tools", "bin"), process.env.PATH].join(delimiter),
};

/** The workspace folders, in the order pnpm-workspace.yaml lists their patterns. */
function workspaceDirs() {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const section = yaml.split(/^packages:\s*$/m)[1]?.split(/^\S/m)[0] ?? "";
  const patterns = [...section.matchAll(/^\s+-\s+["']?([^"'\s#]+)["']?/gm)].map((match) => match[1]);
  if (patterns.length === 0) throw new Error("pnpm-workspace.yaml lists no packages");
  return patterns.flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [join(root, pattern)];
    const parent = join(root, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name))
      .sort();
  });
}

function manifestOf(dir) {
  const file = join(dir, "package.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
}

const wanted = process.argv.slice(2);
const workspaces = workspaceDirs()
  .map((dir) => ({ dir, manifest: manifestOf(dir) }))
  .filter(({ manifest }) => manifest?.scripts?.test)
  .filter(
    ({ dir, manifest }) =>
      wanted.length === 0 || wanted.some((w) => w === basename(dir) || w === manifest.name),
  );
if (wanted.length > 0 && workspaces.length === 0) {
  console.error(`run-tests: no workspace with a test script matches ${wanted.join(", ")}`);
  process.exit(2);
}

const target = process.env.ATRIUM_TEST_TARGET ?? (ci ? "both" : "source");
if (!["source", "dist", "both"].includes(target)) {
  console.error(`run-tests: ATRIUM_TEST_TARGET must be "source" or "dist", not ${JSON.stringify(target)}`);
  process.exit(2);
}
const runSources = target !== "dist";
const runBuilt = target !== "source";

const rows = [];
const started = performance.now();

function runStep(command, args, cwd) {
  const start = performance.now();
  const result = spawnSync(command, args, { cwd, env, stdio: "inherit" });
  const seconds = (performance.now() - start) / 1000;
  return { status: result.status ?? 1, seconds, error: result.error };
}

if (ci && wanted.length === 0) {
  console.log("\n── release dry run ──");
  const step = runStep(process.execPath, [join(root, ".ci", "release-dry-run.mjs")], root);
  rows.push({ name: "release dry run", seconds: step.seconds, ok: step.status === 0, counts: undefined });
}

/** Runs one workspace's test script and records its row, counted from its vitest summary. */
function runWorkspaceTests({ dir, manifest }, script, name, stepEnv = env) {
  const report = join(dir, ".vitest", "summary.json");
  rmSync(report, { force: true });
  console.log(`\n── ${name} (${relative(root, dir)}) ──`);
  const start = performance.now();
  const result = spawnSync("pnpm", ["run", script], { cwd: dir, env: stepEnv, stdio: "inherit" });
  const seconds = (performance.now() - start) / 1000;
  if (result.error) console.error(`run-tests: could not start pnpm: ${result.error.message}`);
  const status = result.status ?? 1;
  const counts = readReport(report, manifest.name);
  // A suite that crashed before it reported still fails the run.
  if (status !== 0 && counts.failed === 0) counts.failed = 1;
  rows.push({ name, seconds, ok: status === 0 && counts.failed === 0, counts });
}

if (runSources)
  for (const workspace of workspaces) {
    runWorkspaceTests(workspace, "test", workspace.manifest.name);
    // The same suites on another store (the palace's on PostgreSQL), as a row of their own.
    if (workspace.manifest.scripts?.["test:postgres"])
      runWorkspaceTests(workspace, "test:postgres", `${workspace.manifest.name} on PostgreSQL`);
  }

// The tests that depend on who runs them, again as an unprivileged user (.ci/unprivileged-tests.mjs).
if (ci && runSources && wanted.length === 0) {
  const step = runStep(process.execPath, [join(root, ".ci", "unprivileged-tests.mjs")], root);
  rows.push({ name: "unprivileged tests", seconds: step.seconds, ok: step.status === 0, counts: undefined });
}

if (runBuilt) {
  const built = workspaces.filter(({ manifest }) => manifest.scripts?.["test:built"]);
  const uncommitted = spawnSync("git", ["status", "--porcelain", "--", "packages"], {
    cwd: root,
    encoding: "utf8",
  });
  if (uncommitted.stdout)
    console.log(
      "\nThe built pass tests HEAD's tarballs: uncommitted changes under packages/ are not in them.",
    );
  console.log("\n── built: runtime files in the tarballs ──");
  const check = runStep(process.execPath, [join(root, ".ci", "runtime-files.mjs")], root);
  rows.push({ name: "runtime files", seconds: check.seconds, ok: check.status === 0, counts: undefined });
  if (built.length > 0) await runBuiltPass(built);
}

/**
 * HEAD's packages published to a local registry (.ci/local-registry.mjs), installed from it by
 * name (.ci/installed-packages.mjs), then each `test:built` script, with the registry's URL in
 * ATRIUM_REGISTRY_URL for the suites that install more (tests/install). The registry is stopped
 * by its PID when the pass ends, however it ends.
 */
async function runBuiltPass(built) {
  console.log("\n── built: HEAD's packages published to a local registry ──");
  let start = performance.now();
  let registry;
  try {
    registry = await startWithHeadPublished(root, (message) => console.log(`local-registry: ${message}`));
  } catch (error) {
    console.error(error.message);
  }
  rows.push({
    name: "publish to local registry",
    seconds: (performance.now() - start) / 1000,
    ok: registry !== undefined,
    counts: undefined,
  });
  if (!registry) return;
  try {
    console.log("\n── built: installed by name from the local registry ──");
    start = performance.now();
    const registryEnv = { ...env, ATRIUM_REGISTRY_URL: registry.url };
    const install = spawnSync(process.execPath, [join(root, ".ci", "installed-packages.mjs")], {
      cwd: root,
      env: registryEnv,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const project = install.status === 0 ? install.stdout.trim() : undefined;
    rows.push({
      name: "install by name",
      seconds: (performance.now() - start) / 1000,
      ok: project !== undefined,
      counts: undefined,
    });
    if (project) {
      const builtEnv = { ...registryEnv, ATRIUM_TEST_TARGET: "dist", ATRIUM_INSTALLED_PACKAGES: project };
      for (const workspace of built)
        runWorkspaceTests(workspace, "test:built", `${workspace.manifest.name} (built)`, builtEnv);
    }
  } finally {
    await registry.stop();
  }
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const skips = [];
const setupFailures = [];
for (const { counts } of rows) {
  if (!counts) continue;
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped.length;
  skips.push(...counts.skipped);
  setupFailures.push(...counts.setupFailures);
}

console.log("\nTime per package:");
for (const row of rows) {
  const c = row.counts;
  const tally = c ? `${c.passed} passed, ${c.failed} failed, ${c.skipped.length} skipped` : "";
  console.log(
    `  ${row.ok ? "ok  " : "FAIL"} ${row.name.padEnd(26)} ${row.seconds.toFixed(1).padStart(7)} s  ${tally}`,
  );
}
console.log(`  total ${((performance.now() - started) / 1000).toFixed(1)} s`);

if (setupFailures.length > 0) {
  console.log("\nTests counted as failed because their set-up (beforeAll/beforeEach) failed:");
  for (const name of setupFailures) console.log(`  ${name}`);
}

const allowed = readAllowedSkips(join(root, ".ci", "allowed-skips.txt"));
const unexpected = skips.filter((skip) => !allowed.has(skip.id));
if (skips.length > 0) {
  console.log("\nSkipped tests:");
  for (const skip of skips) {
    const why = [skip.note, allowed.has(skip.id) ? `allowed: ${allowed.get(skip.id)}` : undefined].filter(
      Boolean,
    );
    console.log(`  ${skip.id}${why.length ? `  (${why.join("; ")})` : ""}`);
  }
}
let status = rows.every((row) => row.ok) ? 0 : 1;
if (ci && unexpected.length > 0) {
  console.log(
    `\nUnder CI=true every skip must be listed in .ci/allowed-skips.txt; ${unexpected.length} ${unexpected.length === 1 ? "is" : "are"} not (see above).`,
  );
  status = 1;
}

console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(status);
