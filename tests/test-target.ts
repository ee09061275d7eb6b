// Which code a test run exercises: the TypeScript sources (the default, no build needed) or what
// ships (ATRIUM_TEST_TARGET=dist): HEAD's packages published to a local registry and installed
// from it by name with npm into one project (.ci/installed-packages.mjs). The built pass of `npm test` (.ci/run-tests.mjs) runs each
// package's `test:built` files that way, so a runtime file a tarball lacks (a worker entry, a
// `.cjs` helper, an asset read at run time) fails a test instead of a user's first run.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Plugin } from "vite";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const SOURCE_CONDITION = "@atrium/source";

export type TestTarget = "source" | "dist";

export function testTarget(): TestTarget {
  const target = process.env.ATRIUM_TEST_TARGET ?? "source";
  if (target !== "source" && target !== "dist") {
    throw new Error(`ATRIUM_TEST_TARGET must be "source" or "dist", not ${JSON.stringify(target)}`);
  }
  return target;
}

/**
 * The project holding HEAD's installed tarballs: the one `.ci/run-tests.mjs` prepared
 * (ATRIUM_INSTALLED_PACKAGES), or one installed now for a run started by hand (minutes, once per
 * commit). Set in the environment, so test workers and their child processes see it.
 */
export function installedProject(): string {
  let dir = process.env.ATRIUM_INSTALLED_PACKAGES;
  if (!dir) {
    const script = join(ROOT, ".ci", "installed-packages.mjs");
    dir = execFileSync(process.execPath, [script], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
    process.env.ATRIUM_INSTALLED_PACKAGES = dir;
  }
  return dir;
}

interface Manifest {
  name: string;
  bin?: string | Record<string, string>;
  exports?: Record<string, unknown>;
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

/** The file an export target resolves to under `condition` (only the flat form this repo writes). */
function exportTarget(target: unknown, condition: string): string | undefined {
  if (typeof target === "string") return condition === "default" ? target : undefined;
  const value = (target as Record<string, unknown> | null)?.[condition];
  return typeof value === "string" ? value : undefined;
}

/**
 * A Vite plugin sending every import of a workspace package's public entry points to the installed
 * tarball's built file: `@atrium/x` and `@atrium/x/sub` by name, and a test's relative import of
 * its own package's entry source (`../src/index.js`). The built files sit under node_modules, so
 * vitest leaves them to Node, which resolves their own imports inside the installed project, as
 * it would for a user. Deeper relative imports (`../src/network/allow-list.js`) stay on sources:
 * a test for the built pass imports what it exercises from the entry point.
 */
export function builtPackagesPlugin(project: string): Plugin {
  const byName = new Map<string, string>();
  const bySourceFile = new Map<string, string>();
  const installedScope = join(project, "node_modules", "@atrium");
  for (const dir of readdirSync(join(ROOT, "packages"))) {
    const workspaceDir = join(ROOT, "packages", dir);
    if (!existsSync(join(workspaceDir, "package.json"))) continue;
    const manifest = readManifest(workspaceDir);
    const installedDir = join(installedScope, manifest.name.slice("@atrium/".length));
    if (!existsSync(installedDir)) continue;
    const installed = readManifest(installedDir);
    for (const [subpath, target] of Object.entries(installed.exports ?? {})) {
      const built = exportTarget(target, "default");
      if (!built || subpath.endsWith(".json")) continue;
      const builtFile = join(installedDir, built);
      byName.set(join(manifest.name, subpath), builtFile);
      const source = exportTarget(manifest.exports?.[subpath], SOURCE_CONDITION);
      if (source) bySourceFile.set(join(workspaceDir, source), builtFile);
    }
  }
  return {
    name: "atrium-built-packages",
    enforce: "pre",
    resolveId(id, importer) {
      const named = byName.get(id);
      if (named) return named;
      if (!importer || !id.startsWith(".")) return undefined;
      const file = resolve(dirname(importer), id).replace(/\.js$/, ".ts");
      return bySourceFile.get(file);
    },
  };
}

/**
 * The arguments for `process.execPath` that start the CLI of the package in `packageDir`: its
 * TypeScript entry through tsx, or under ATRIUM_TEST_TARGET=dist the installed tarball's bin
 * (`node_modules/.bin/<name>`, so the link npm made is part of what is tested).
 */
/**
 * The version of the package under test: its source's, or with ATRIUM_TEST_TARGET=dist the
 * installed tarball's (the built pass publishes HEAD with its pending changesets applied).
 */
export function targetVersion(packageDir: string): string {
  const dir =
    testTarget() === "dist"
      ? join(installedProject(), "node_modules", readManifest(packageDir).name)
      : packageDir;
  return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
}

export function cliArgs(packageDir: string): string[] {
  const manifest = readManifest(packageDir);
  const bins = typeof manifest.bin === "string" ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {});
  const [name, target] = Object.entries(bins)[0] ?? [];
  if (!name || !target) throw new Error(`${manifest.name} has no bin`);
  if (testTarget() === "dist") return [join(installedProject(), "node_modules", ".bin", name)];
  // tsx as a loader of this node (not its CLI, which starts a second node), found from the package.
  const tsx = pathToFileURL(createRequire(join(packageDir, "package.json")).resolve("tsx")).href;
  const source = target.replace(/^(\.\/)?dist\//, "src/").replace(/\.js$/, ".ts");
  return [`--conditions=${SOURCE_CONDITION}`, "--import", tsx, join(packageDir, source)];
}
