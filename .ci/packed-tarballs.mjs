#!/usr/bin/env node
// The public packages of HEAD, built and packed as `pnpm publish` would pack them, shared by the
// release dry run and the installed-tarball test (tests/install), so CI builds and packs once.
// A set is cached per commit in node_modules/.cache/atrium-packed/<commit>/ (tarballs and an
// index, packs.json); whoever packs HEAD first saves it, the other reuses it.
//
//   node .ci/packed-tarballs.mjs     prints the index of HEAD's set as JSON, packing it if needed
//
// Packed from a throwaway clone of HEAD (as the dry run does): uncommitted changes are not in it.
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Sets kept besides the newest: a run on the previous commit may still be reading one. */
const KEEP_SETS = 2;
const INDEX = "packs.json";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The environment every step runs in: the checkout's pnpm first, local headers for node-gyp. */
export function toolEnv(root = repoRoot) {
  const env = { ...process.env, PATH: `${join(root, ".tools/bin")}:${process.env.PATH}`, CI: "true" };
  // better-sqlite3 builds against local headers when they exist (see .ci/setup.sh).
  if (existsSync("/usr/include/node/node.h")) env.npm_config_nodedir = "/usr";
  return env;
}

/** Runs a command; a failure throws an Error carrying its output. */
export function exec(command, args, cwd, env = toolEnv()) {
  try {
    return execFileSync(command, args, {
      cwd,
      env,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`.trim();
    throw new Error(`\`${command} ${args.join(" ")}\` failed in ${cwd} (exit ${error.status})\n${output}`);
  }
}

export function headCommit(root = repoRoot) {
  return exec("git", ["rev-parse", "HEAD"], root).trim();
}

/**
 * Clones HEAD into `clone` and installs it: offline from the machine's pnpm store when it has
 * everything, else with the registry (a CI runner without the store).
 */
export function cloneHead(root, clone, log = () => {}) {
  exec("git", ["clone", "--quiet", root, clone], root);
  try {
    exec("pnpm", ["install", "--frozen-lockfile", "--offline", "--reporter=silent"], clone);
  } catch {
    log("offline install incomplete, installing with the registry");
    exec("pnpm", ["install", "--frozen-lockfile", "--prefer-offline", "--reporter=silent"], clone);
  }
}

/** The workspace packages that get published: not private, not ignored by changesets. */
export function publicPackages(clone) {
  const workspace = JSON.parse(exec("pnpm", ["ls", "-r", "--depth", "-1", "--json"], clone));
  const config = JSON.parse(readFileSync(join(clone, ".changeset/config.json"), "utf8"));
  const ignored = new Set(config.ignore ?? []);
  return workspace.filter((pkg) => pkg.path !== clone && !pkg.private && !ignored.has(pkg.name));
}

export function buildPackages(clone, names) {
  exec("pnpm", ["-r", ...names.flatMap((name) => ["--filter", name]), "run", "build"], clone);
}

/**
 * Builds every package it can (pnpm --no-bail) and says which could not, by folder: what pnpm's
 * --report-summary records. A package being written may not build yet; the others still get packed.
 */
function buildWhatBuilds(clone, names) {
  const filters = names.flatMap((name) => ["--filter", name]);
  try {
    exec("pnpm", ["-r", "--no-bail", "--report-summary", ...filters, "run", "build"], clone);
  } catch {
    // Which packages failed is read from the summary below.
  }
  const summary = join(clone, "pnpm-exec-summary.json");
  const status = existsSync(summary) ? JSON.parse(readFileSync(summary, "utf8")).executionStatus : {};
  return new Map(
    Object.entries(status)
      .filter(([, result]) => result.status !== "passed")
      .map(([dir, result]) => [dir, result.message ?? result.status]),
  );
}

/** `pnpm pack` of one package into `dest`: the tarball's path and its manifest as packed. */
export function packPackage(dir, dest) {
  const result = JSON.parse(exec("pnpm", ["pack", "--pack-destination", dest, "--json"], dir));
  const tarball = result.filename.startsWith("/") ? result.filename : join(dest, result.filename);
  const manifest = JSON.parse(exec("tar", ["-xzOf", tarball, "package/package.json"], dir));
  return { tarball, manifest };
}

/** Where packed sets (and what is made of them, such as .ci/installed-packages.mjs) are kept. */
export function cacheRoot(root) {
  return join(root, "node_modules", ".cache", "atrium-packed");
}

/**
 * The saved set of `commit`, or undefined: `{ commit, packages: [{ name, version, tarball, manifest }],
 * failed: [{ name, dir, message }] }`, with absolute tarball paths.
 */
export function loadPackedSet(root, commit) {
  const dir = join(cacheRoot(root), commit);
  const index = join(dir, INDEX);
  if (!existsSync(index)) return undefined;
  const set = JSON.parse(readFileSync(index, "utf8"));
  const packages = set.packages.map((pkg) => ({ ...pkg, tarball: join(dir, pkg.tarball) }));
  if (!packages.every((pkg) => existsSync(pkg.tarball))) return undefined;
  return { commit, packages, failed: set.failed ?? [] };
}

/**
 * Saves `packages` (`{ tarball, manifest }` each) as the set of `commit`, with the packages that
 * could not be built (`failed`), replacing any, and prunes old sets.
 */
export function savePackedSet(root, commit, packages, failed = []) {
  const cache = cacheRoot(root);
  mkdirSync(cache, { recursive: true });
  // Written beside and renamed into place, so a reader never sees half a set.
  const staging = mkdtempSync(join(cache, ".staging-"));
  const entries = packages.map(({ tarball, manifest }) => {
    copyFileSync(tarball, join(staging, basename(tarball)));
    return { name: manifest.name, version: manifest.version, tarball: basename(tarball), manifest };
  });
  const index = { commit, savedAt: Date.now(), packages: entries, failed };
  writeFileSync(join(staging, INDEX), `${JSON.stringify(index, null, 2)}\n`);
  const dir = join(cache, commit);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  pruneSets(cache, commit);
  return loadPackedSet(root, commit);
}

/** Keeps the newest sets (by when they were saved) and removes the rest. */
function pruneSets(cache, current) {
  const savedAt = (dir) => {
    const index = join(cache, dir, INDEX);
    return existsSync(index) ? (JSON.parse(readFileSync(index, "utf8")).savedAt ?? 0) : 0;
  };
  const others = readdirSync(cache, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== current && !entry.name.startsWith("."))
    .map((entry) => ({ dir: entry.name, time: savedAt(entry.name) }))
    .sort((a, b) => b.time - a.time);
  for (const { dir } of others.slice(KEEP_SETS - 1))
    rmSync(join(cache, dir), { recursive: true, force: true });
}

/**
 * HEAD's set: the saved one, or a fresh clone built and packed (and saved). A package that does
 * not build is left out and listed in `failed` (`{ name, dir, message }`, `dir` relative to the
 * repository) for the caller to judge; the release dry run refuses any.
 */
export function packedHead(root = repoRoot, log = () => {}) {
  const commit = headCommit(root);
  const saved = loadPackedSet(root, commit);
  if (saved) {
    log(`reusing the packed set of ${commit.slice(0, 7)}`);
    return saved;
  }
  const temp = mkdtempSync(join(tmpdir(), "atrium-pack-"));
  try {
    const clone = join(temp, "repo");
    log(`packing ${commit.slice(0, 7)} in ${clone}`);
    cloneHead(root, clone, log);
    const packages = publicPackages(clone);
    const failures = buildWhatBuilds(
      clone,
      packages.map((pkg) => pkg.name),
    );
    const packs = join(temp, "packs");
    const built = packages.filter((pkg) => !failures.has(pkg.path));
    const failed = packages
      .filter((pkg) => failures.has(pkg.path))
      .map((pkg) => ({ name: pkg.name, dir: relative(clone, pkg.path), message: failures.get(pkg.path) }));
    for (const { name, message } of failed) log(`${name} does not build (${message}); left out`);
    return savePackedSet(
      root,
      commit,
      built.map((pkg) => packPackage(pkg.path, packs)),
      failed,
    );
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const set = packedHead(repoRoot, (message) => console.error(`packed-tarballs: ${message}`));
  process.stdout.write(`${JSON.stringify(set)}\n`);
}
