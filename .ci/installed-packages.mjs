#!/usr/bin/env node
// HEAD's packed tarballs installed with npm into one project, the way a user gets them: what the
// built test pass (ATRIUM_TEST_TARGET=dist) runs, so a file the tarball lacks fails a test.
// Kept per commit beside the packed set (node_modules/.cache/atrium-packed/<commit>/installed),
// so the packages of one run share one install and a set's pruning removes it too.
//
//   node .ci/installed-packages.mjs     prints the project folder, installing HEAD's set if needed
//
// The workspace's vitest is linked into the project: @atrium/spec/testing imports vitest, and a
// contract suite must register with the runner running the test, not with a copy of it.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot, packedHead, repoRoot } from "./packed-tarballs.mjs";

/** Written last: a folder without it is an install that did not finish. */
const DONE = ".installed";

export function installedHead(root = repoRoot, log = () => {}) {
  const set = packedHead(root, log);
  const dir = join(cacheRoot(root), set.commit, "installed");
  if (existsSync(join(dir, DONE))) return dir;
  if (set.failed.length > 0) {
    const names = set.failed.map((pkg) => `${pkg.name} (${pkg.message})`).join(", ");
    throw new Error(`installed-packages: not every package builds at ${set.commit.slice(0, 7)}: ${names}`);
  }
  log(`installing the packed set of ${set.commit.slice(0, 7)} with npm`);
  // Installed beside and renamed into place, so a concurrent reader never sees half a project.
  const staging = mkdtempSync(join(cacheRoot(root), set.commit, ".installing-"));
  try {
    // The workspace's overrides are what the READMEs tell a user on this platform to add (the
    // Chroma server binary pinned for glibc 2.36).
    const manifest = {
      name: "atrium-installed",
      private: true,
      type: "module",
      overrides: workspaceOverrides(root),
    };
    writeFileSync(join(staging, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    const env = { ...process.env };
    // better-sqlite3 builds against local headers when they exist (see .ci/setup.sh).
    if (existsSync("/usr/include/node/node.h")) env.npm_config_nodedir = "/usr";
    const tarballs = set.packages.map((pkg) => pkg.tarball);
    try {
      execFileSync(
        "npm",
        ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs],
        { cwd: staging, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 },
      );
    } catch (error) {
      throw new Error(
        `installed-packages: npm install of the packed set failed\n${error.stdout}${error.stderr}`,
      );
    }
    const vitest = join(root, "node_modules", "vitest");
    mkdirSync(join(staging, "node_modules"), { recursive: true });
    symlinkSync(vitest, join(staging, "node_modules", "vitest"));
    writeFileSync(join(staging, DONE), `${set.commit}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

/** The `overrides:` of pnpm-workspace.yaml (flat `name: version` lines), as npm's overrides. */
function workspaceOverrides(root) {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const section = yaml.split(/^overrides:\s*$/m)[1]?.split(/^\S/m)[0] ?? "";
  return Object.fromEntries(
    [...section.matchAll(/^\s+["']?([^"'\s#:]+)["']?:\s*["']?([^"'\s#]+)["']?\s*$/gm)].map((match) => [
      match[1],
      match[2],
    ]),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const dir = installedHead(repoRoot, (message) => console.error(`installed-packages: ${message}`));
    process.stdout.write(`${dir}\n`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
