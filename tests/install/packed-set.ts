// HEAD's public packages as tarballs, from .ci/packed-tarballs.mjs: the set the release dry run
// saved for this commit, or one packed now (a clone of HEAD, built and `pnpm pack`ed); what
// tests/install publishes to its local registry.
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
