#!/usr/bin/env node
// Release dry run: what `changeset version` + `pnpm publish` would do, without touching this
// checkout or any registry. In a throwaway clone of HEAD it installs offline from the pnpm store,
// adds a patch changeset for every public package when none is pending (so `changeset version`
// has something to do), builds, runs `pnpm -r publish --dry-run`, and fails when a tarball misses
// an entry point, ships a test file or keeps a `workspace:` range.
//
//   node .ci/release-dry-run.mjs [--keep]     (--keep leaves the temp clone for inspection)
//
// Offline: `pnpm publish` asks the registry which versions exist before it packs, retrying for
// about 70 s when it can't reach one; `--force` skips that question, and the registry is a closed
// loopback port so nothing could be uploaded even if --dry-run were ignored.
//
// The tarballs it packs are saved as HEAD's packed set (.ci/packed-tarballs.mjs), which the
// installed-tarball test (tests/install) then installs instead of building and packing again.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildPackages,
  cloneHead,
  headCommit,
  publicPackages as listPublicPackages,
  packPackage,
  repoRoot,
  savePackedSet,
  toolEnv,
} from "./packed-tarballs.mjs";

const NO_REGISTRY = "http://127.0.0.1:9/";
const SOURCE_CONDITION = "@atrium/source";
/** Paths that are tests or test support, never to be published. */
const TEST_FILE = [
  /(^|\/)(__tests__|tests?)\//,
  /\.(test|spec|bench)\.[cm]?[jt]sx?$/,
  /(^|\/)test-(fixtures|support|helpers)\.[cm]?[jt]s$/,
];

const root = repoRoot;
const keep = process.argv.includes("--keep");
const started = performance.now();
const env = toolEnv(root);

function run(command, args, cwd, options = {}) {
  try {
    return execFileSync(command, args, {
      cwd,
      env,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", options.quiet ? "pipe" : "inherit"],
    });
  } catch (error) {
    if (options.allowFailure) return undefined;
    process.stderr.write(error.stdout ?? "");
    process.stderr.write(error.stderr ?? "");
    fail(`\`${command} ${args.join(" ")}\` failed in ${cwd} (exit ${error.status})`);
  }
}

function fail(message) {
  console.error(`release-dry-run: ${message}`);
  cleanup();
  process.exit(1);
}

const temp = mkdtempSync(join(tmpdir(), "atrium-release-"));
const clone = join(temp, "repo");
function cleanup() {
  if (keep) console.error(`release-dry-run: kept ${clone}`);
  else rmSync(temp, { recursive: true, force: true });
}

const commit = headCommit(root);
// The store of the machine's earlier installs serves everything; a CI runner without it falls back to the network.
step(() => cloneHead(root, clone, log));
log(`cloned ${commit.slice(0, 7)} into ${clone}`);

const publicPackages = step(() => listPublicPackages(clone));
if (publicPackages.length === 0) fail("the workspace has no public package");
const before = new Map(publicPackages.map((pkg) => [pkg.name, pkg.version]));

const changesetDir = join(clone, ".changeset");
const pending = readdirSync(changesetDir).filter((file) => file.endsWith(".md") && file !== "README.md");
/** The packages `changeset version` must bump: those the pending changesets name, or all. */
let releasing;
if (pending.length === 0) {
  const header = publicPackages.map((pkg) => `"${pkg.name}": patch`).join("\n");
  writeFileSync(join(changesetDir, "release-dry-run.md"), `---\n${header}\n---\n\nRelease dry run.\n`);
  log(`no pending changeset: added a patch for ${publicPackages.length} packages`);
  releasing = new Set(publicPackages.map((pkg) => pkg.name));
} else {
  releasing = new Set(
    pending.flatMap((file) => {
      const front = readFileSync(join(changesetDir, file), "utf8").split(/^---$/m)[1] ?? "";
      return [...front.matchAll(/^\s*["']?(@?[^"':\s]+)["']?\s*:\s*(major|minor|patch)\s*$/gm)].map(
        (match) => match[1],
      );
    }),
  );
  log(`${pending.length} pending changeset(s), releasing ${[...releasing].sort().join(", ")}`);
}
run("pnpm", ["exec", "changeset", "version"], clone, { quiet: true });

const manifests = new Map(
  publicPackages.map((pkg) => [pkg.name, JSON.parse(readFileSync(join(pkg.path, "package.json"), "utf8"))]),
);
log("building");
step(() =>
  buildPackages(
    clone,
    publicPackages.map((pkg) => pkg.name),
  ),
);

const published = JSON.parse(
  run(
    "pnpm",
    ["-r", "publish", "--dry-run", "--no-git-checks", "--force", "--json", "--registry", NO_REGISTRY],
    clone,
    { quiet: true },
  ),
);

const problems = [];
const rows = [];
const packs = join(temp, "packs");
const packed = [];
for (const pkg of publicPackages) {
  const manifest = manifests.get(pkg.name);
  const result = published.find((entry) => entry.name === pkg.name);
  if (!result) {
    problems.push(`${pkg.name}: not in pnpm publish's output`);
    continue;
  }
  const files = new Set(result.files.map((file) => file.path));
  if (releasing.has(pkg.name) && result.version === before.get(pkg.name)) {
    problems.push(`${pkg.name}: changeset version left it at ${result.version}`);
  }
  const entries = entryPoints(manifest);
  if (!entries.some((entry) => entry.startsWith("dist/"))) {
    problems.push(`${pkg.name}: no entry point in dist/ (exports, main, types or bin)`);
  }
  for (const entry of entries) {
    if (!files.has(entry)) problems.push(`${pkg.name}: entry point ${entry} is not in the tarball (built?)`);
  }
  for (const file of files) {
    if (TEST_FILE.some((pattern) => pattern.test(file)))
      problems.push(`${pkg.name}: ships test file ${file}`);
  }
  // The manifest as packed: pnpm replaces workspace: ranges with the versions just set.
  const pack = step(() => packPackage(pkg.path, packs));
  packed.push(pack);
  for (const [field, ranges] of dependencyFields(pack.manifest)) {
    for (const [name, range] of Object.entries(ranges)) {
      if (String(range).startsWith("workspace:"))
        problems.push(`${pkg.name}: ${field}.${name} is still ${range}`);
    }
  }
  rows.push([
    pkg.name,
    `${before.get(pkg.name)} → ${result.version}`,
    kilobytes(result.size),
    String(files.size),
  ]);
}

printTable(["package", "version", "tarball", "files"], rows);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (problems.length > 0) {
  for (const problem of problems) console.error(`  ✗ ${problem}`);
  fail(`${problems.length} problem(s) in ${seconds} s`);
}
log(`ok: ${rows.length} packages would publish (${seconds} s)`);
step(() => savePackedSet(root, commit, packed));
cleanup();

/** Runs a shared step (they throw), failing the dry run with its message. */
function step(action) {
  try {
    return action();
  } catch (error) {
    fail(error.message);
  }
}

/** Every file a consumer can reach through the manifest: exports targets (but the source condition), main, module, types, bin. */
function entryPoints(manifest) {
  const found = new Set();
  const add = (target) => {
    if (typeof target === "string" && !target.includes("*")) found.add(target.replace(/^\.\//, ""));
  };
  const walk = (node) => {
    if (typeof node === "string") return add(node);
    if (Array.isArray(node)) return node.forEach(walk);
    if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) if (key !== SOURCE_CONDITION) walk(value);
    }
  };
  walk(manifest.exports);
  for (const field of ["main", "module", "types", "typings"]) add(manifest[field]);
  if (typeof manifest.bin === "string") add(manifest.bin);
  else for (const target of Object.values(manifest.bin ?? {})) add(target);
  return [...found].sort();
}

function dependencyFields(manifest) {
  return ["dependencies", "peerDependencies", "optionalDependencies"]
    .filter((field) => manifest[field])
    .map((field) => [field, manifest[field]]);
}

function kilobytes(bytes) {
  return `${(bytes / 1024).toFixed(1)} kB`;
}

function printTable(header, body) {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((row) => row[column].length)),
  );
  const line = (row) =>
    row
      .map((cell, column) => (column >= 2 ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
      .join("  ");
  console.log(line(header));
  for (const row of body) console.log(line(row));
}

function log(message) {
  console.log(`release-dry-run: ${message}`);
}
