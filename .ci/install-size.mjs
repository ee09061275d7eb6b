#!/usr/bin/env node
// Install size: what a user's `npm install` of each public package costs, measured as a user gets
// it. In a throwaway clone of HEAD it installs from the pnpm store, builds and packs every public
// package, then installs each one alone into an empty project with npm from those tarballs (its
// workspace dependencies given as tarballs too, everything else from the registry) and records
// the size of node_modules and the number of packages in it, in bench-results/install.json.
//
//   node .ci/install-size.mjs [--keep]     (--keep leaves the temp directory for inspection)
//
// Needs the npm registry. `@atrium/chromafs` is measured twice: alone (its optional peer
// `@atrium/chroma` left out, as a user of LocalFolderStore and the agent tool installs it) and
// with `@atrium/chroma` added for ChromaDocStore.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const keep = process.argv.includes("--keep");
const env = { ...process.env, PATH: `${join(root, ".tools/bin")}:${process.env.PATH}`, CI: "true" };
if (existsSync("/usr/include/node/node.h")) env.npm_config_nodedir = "/usr";

function run(command, args, cwd) {
  try {
    return execFileSync(command, args, {
      cwd,
      env,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    process.stderr.write(error.stdout ?? "");
    process.stderr.write(error.stderr ?? "");
    console.error(`install-size: \`${command} ${args.join(" ")}\` failed in ${cwd} (exit ${error.status})`);
    cleanup();
    process.exit(1);
  }
}

const temp = mkdtempSync(join(tmpdir(), "atrium-install-size-"));
const clone = join(temp, "repo");
const packs = join(temp, "packs");
function cleanup() {
  if (keep) console.error(`install-size: kept ${temp}`);
  else rmSync(temp, { recursive: true, force: true });
}

run("git", ["clone", "--quiet", root, clone], root);
run("pnpm", ["install", "--frozen-lockfile", "--prefer-offline", "--reporter=silent"], clone);
const workspace = JSON.parse(run("pnpm", ["ls", "-r", "--depth", "-1", "--json"], clone));
const ignored = new Set(JSON.parse(readFileSync(join(clone, ".changeset/config.json"), "utf8")).ignore ?? []);
const publicPackages = workspace.filter(
  (pkg) => pkg.path !== clone && !pkg.private && !ignored.has(pkg.name),
);
run("pnpm", ["-r", ...publicPackages.flatMap((pkg) => ["--filter", pkg.name]), "run", "build"], clone);

/** name → { tarball, manifest as packed } */
const packed = new Map();
for (const pkg of publicPackages) {
  const result = JSON.parse(run("pnpm", ["pack", "--pack-destination", packs, "--json"], pkg.path));
  const tarball = result.filename.startsWith("/") ? result.filename : join(packs, result.filename);
  const manifest = JSON.parse(run("tar", ["-xzOf", tarball, "package/package.json"], pkg.path));
  packed.set(pkg.name, { tarball, manifest });
}

/** The package and the workspace packages it needs (dependencies and non-optional peers), transitively. */
function closure(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  const { manifest } = packed.get(name);
  const optional = manifest.peerDependenciesMeta ?? {};
  const peers = Object.keys(manifest.peerDependencies ?? {}).filter((peer) => !optional[peer]?.optional);
  for (const dep of [...Object.keys(manifest.dependencies ?? {}), ...peers]) {
    if (packed.has(dep)) closure(dep, seen);
  }
  return seen;
}

const cases = [...packed.keys()].map((name) => ({ label: name, names: [...closure(name)] }));
if (packed.has("@atrium/chromafs") && packed.has("@atrium/chroma")) {
  const names = [...closure("@atrium/chromafs", closure("@atrium/chroma"))];
  cases.push({ label: "@atrium/chromafs+chroma", names });
}

const rows = [];
for (const { label, names } of cases) {
  const project = join(temp, "projects", label.replace(/[@/+]/g, "_"));
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "install-size", private: true })}\n`,
  );
  const tarballs = names.map((name) => packed.get(name).tarball);
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], project);
  const modules = join(project, "node_modules");
  const bytes = Number(run("du", ["-sb", modules], project).split("\t")[0]);
  const count = countPackages(modules);
  const key = label.replace(/^@atrium\//, "");
  const has = (dep) => existsSync(join(modules, dep, "package.json"));
  console.log(
    `${label}: ${(bytes / 1e6).toFixed(1)} MB, ${count} packages (${names.join(", ")})` +
      `${has("chromadb") ? " [chromadb]" : ""}${has("ai") ? " [ai]" : ""}`,
  );
  if (label === "@atrium/chromafs") checkWithoutChroma(project);
  rows.push({ metric: `install.${key}.size_mb`, value: bytes / 1e6, unit: "MB" });
  rows.push({ metric: `install.${key}.packages`, value: count, unit: "packages" });
}

const out = join(root, "bench-results", "install.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(rows, null, 2)}\n`);
console.log(`→ ${out}`);
cleanup();

/**
 * chromafs installed without its optional peer: the barrel loads, and ChromaDocStore says what to
 * install instead of failing on a missing module.
 */
function checkWithoutChroma(project) {
  const script = `
    import { ChromaDocStore, LocalFolderStore } from "@atrium/chromafs";
    new LocalFolderStore(process.cwd());
    const expected = "ChromaDocStore needs @atrium/chroma (and chromadb): npm install @atrium/chroma";
    await ChromaDocStore.open({ url: "http://127.0.0.1:9", collection: "docs" }).then(
      () => { throw new Error("ChromaDocStore.open succeeded without @atrium/chroma"); },
      (error) => { if (error.message !== expected) throw error; },
    );
  `;
  writeFileSync(join(project, "without-chroma.mjs"), script);
  run("node", ["without-chroma.mjs"], project);
}

/** Installed packages under a node_modules folder, nested node_modules included; symlinks are not followed. */
function countPackages(modules) {
  if (!existsSync(modules)) return 0;
  let count = 0;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith(".")) continue;
    const path = join(modules, entry);
    if (entry.startsWith("@")) {
      for (const scoped of readdirSync(path)) count += countPackage(join(path, scoped));
    } else {
      count += countPackage(path);
    }
  }
  return count;
}

function countPackage(path) {
  if (lstatSync(path).isSymbolicLink() || !existsSync(join(path, "package.json"))) return 0;
  return 1 + countPackages(join(path, "node_modules"));
}
