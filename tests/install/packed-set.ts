// HEAD's public packages as tarballs, from .ci/packed-tarballs.mjs: the set the release dry run
// saved for this commit, or one packed now (a clone of HEAD, built and `pnpm pack`ed).
import { join } from "node:path";
import { runProcess } from "./run-process.ts";

export const PACK_TIMEOUT_MS = 15 * 60_000;

export interface PackedManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface PackedSet {
  commit: string;
  packages: { name: string; version: string; tarball: string; manifest: PackedManifest }[];
  /** Public packages that did not build, so are not in `packages`. */
  failed: { name: string; dir: string; message: string }[];
}

/** Resolves with HEAD's set; packing takes a minute or two (more on a busy machine) when none is saved. */
export async function packedHead(root: string): Promise<PackedSet> {
  const script = join(root, ".ci", "packed-tarballs.mjs");
  const result = await runProcess(process.execPath, [script], {
    cwd: root,
    env: process.env,
    timeoutMs: PACK_TIMEOUT_MS,
  });
  if (result.code !== 0)
    throw new Error(`.ci/packed-tarballs.mjs exited with ${result.code}:\n${result.stderr}`);
  return JSON.parse(result.stdout) as PackedSet;
}

/**
 * The tarballs of `names` and of the workspace packages they need (dependencies and peers that
 * are not optional), transitively: npm must get those from the tarballs, since none is on the
 * registry. An optional peer is left out, as a user who did not name it goes without it.
 */
export function tarballsFor(set: PackedSet, names: string[]): string[] {
  const byName = new Map(set.packages.map((pkg) => [pkg.name, pkg]));
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    const pkg = byName.get(name);
    if (!pkg) {
      const failed = set.failed.find((entry) => entry.name === name);
      throw new Error(
        failed
          ? `${name} is not packed: it does not build at ${set.commit.slice(0, 7)} (${failed.message}); run \`pnpm --filter ${name} build\``
          : `${name} is not a public package of this workspace at ${set.commit.slice(0, 7)}`,
      );
    }
    seen.add(name);
    const { dependencies = {}, peerDependencies = {}, peerDependenciesMeta = {} } = pkg.manifest;
    const peers = Object.keys(peerDependencies).filter((peer) => !peerDependenciesMeta[peer]?.optional);
    for (const dep of [...Object.keys(dependencies), ...peers]) {
      if (dep.startsWith("@atrium/")) visit(dep);
    }
  };
  for (const name of names) visit(name);
  return [...seen].map((name) => byName.get(name)?.tarball as string);
}
