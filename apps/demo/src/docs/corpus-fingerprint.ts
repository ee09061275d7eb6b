import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";

/**
 * A hash of every docs file's path, size and modification time. Comparing it with the one
 * recorded after the last ingest tells, in tens of milliseconds, that nothing changed, so a warm
 * start skips even chromafs's incremental ingest (which reads and hashes every page: about 1 s
 * for the Mintlify corpus). It may see a change where there is none (a touched file); the
 * incremental ingest then writes nothing, so erring that way costs only time.
 */
export async function corpusFingerprint(dir: string): Promise<string> {
  const hash = createHash("sha256");
  const entries: string[] = [];
  await walk(dir, "", entries);
  entries.sort();
  for (const entry of entries) hash.update(`${entry}\n`);
  return hash.digest("hex");
}

async function walk(root: string, relative: string, out: string[]): Promise<void> {
  const names = await readdir(join(root, relative));
  for (const name of names) {
    // The same files ingest reads: no dot entries, no node_modules, no symlinks.
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = relative ? `${relative}/${name}` : name;
    const stats = await lstat(join(root, path));
    if (stats.isDirectory()) await walk(root, path, out);
    else if (stats.isFile() && /\.(md|mdx)$|^docs\.json$/.test(name)) {
      out.push(`${path}\t${stats.size}\t${stats.mtimeMs}`);
    }
  }
}

interface FingerprintRecord {
  corpusDir: string;
  collection: string;
  fingerprint: string;
}

/** Where the fingerprint of the last finished ingest is kept, beside Chroma's data. */
export function fingerprintFile(dataDir: string): string {
  return join(dataDir, "docs-fingerprint.json");
}

/** Whether the last finished ingest of `collection` was of this corpus in this state. */
export function fingerprintMatches(dataDir: string, record: FingerprintRecord): boolean {
  const file = fingerprintFile(dataDir);
  if (!existsSync(file)) return false;
  try {
    const stored = JSON.parse(readFileSync(file, "utf8")) as Partial<FingerprintRecord>;
    return (
      stored.corpusDir === record.corpusDir &&
      stored.collection === record.collection &&
      stored.fingerprint === record.fingerprint
    );
  } catch (error) {
    rethrowIfFatal(error);
    // A torn or hand-edited record only means the next start runs the incremental ingest.
    return false;
  }
}

export function recordFingerprint(dataDir: string, record: FingerprintRecord): void {
  writeFileSync(fingerprintFile(dataDir), `${JSON.stringify(record, null, 2)}\n`);
}
