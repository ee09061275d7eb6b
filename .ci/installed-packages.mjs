#!/usr/bin/env node
// HEAD's packages installed with npm into one project, the way a user gets them: published to a
// local registry (.ci/local-registry.mjs) and installed by name (`npm i @atrium/agent …`), with
// only @atrium/* from that registry and everything else from the public one. What the built test
// pass (ATRIUM_TEST_TARGET=dist) runs, so a file the tarball lacks fails a test.
// Kept per commit beside the packed set (node_modules/.cache/atrium-packed/<commit>/installed),
// so the packages of one run share one install and a set's pruning removes it too.
//
//   node .ci/installed-packages.mjs     prints the project folder, installing HEAD's set if needed
//
// The registry is the one at ATRIUM_REGISTRY_URL (HEAD's set already published to it, as the
// built pass of .ci/run-tests.mjs does), or else one this script starts, publishes to and stops.
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
import { installedFromRegistry, startWithHeadPublished } from "./local-registry.mjs";
import { cacheRoot, packedHead, repoRoot } from "./packed-tarballs.mjs";

/** Written last: a folder without it is an install that did not finish. */
const DONE = ".installed";

export async function installedHead(
  root = repoRoot,
  log = () => {},
  registryUrl = process.env.ATRIUM_REGISTRY_URL,
) {
  const set = packedHead(root, log);
  const dir = join(cacheRoot(root), set.commit, "installed");
  if (existsSync(join(dir, DONE))) return dir;
  if (set.failed.length > 0) {
    const names = set.failed.map((pkg) => `${pkg.name} (${pkg.message})`).join(", ");
    throw new Error(`installed-packages: not every package builds at ${set.commit.slice(0, 7)}: ${names}`);
  }
  const own = registryUrl ? undefined : await startWithHeadPublished(root, log);
  const url = (registryUrl ?? own.url).replace(/\/$/, "");
  try {
    return installFromRegistry(root, set, dir, url, log);
  } finally {
    await own?.stop();
  }
}

function installFromRegistry(root, set, dir, url, log) {
  log(`installing the packages of ${set.commit.slice(0, 7)} by name from ${url}`);
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
    // The scope alone: every other package comes from the public registry, as for a user.
    const npmrc = join(staging, ".npmrc");
    writeFileSync(npmrc, `@atrium:registry=${url}/\n`);
    const env = { ...process.env };
    // better-sqlite3 builds against local headers when they exist (see .ci/setup.sh).
    if (existsSync("/usr/include/node/node.h")) env.npm_config_nodedir = "/usr";
    const names = set.packages.map((pkg) => `${pkg.name}@${pkg.version}`);
    try {
      execFileSync(
        "npm",
        ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...names],
        { cwd: staging, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 },
      );
    } catch (error) {
      throw new Error(
        `installed-packages: npm install of ${names.join(" ")} from ${url} failed\n${error.stdout}${error.stderr}`,
      );
    }
    rmSync(npmrc);
    const problems = installedFromRegistry(staging, set, url);
    if (problems.length > 0) throw new Error(`installed-packages: ${problems.join("; ")}`);
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
    const dir = await installedHead(repoRoot, (message) => console.error(`installed-packages: ${message}`));
    process.stdout.write(`${dir}\n`);
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
