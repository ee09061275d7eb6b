import { constants, rmSync } from "node:fs";
import { access, chmod, cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { onExit } from "signal-exit";
import { SERVER_INFO_FILE, SERVER_LOCK_FILE, SERVER_LOG_FILE } from "./server-info-file.js";

/**
 * Whether this process may create files in `dir`. False on a read-only mount (even for root)
 * and for a user without write permission. A Chroma server cannot open its SQLite file from
 * such a directory, and the start lock cannot be created there.
 */
export async function isWritableDirectory(dir: string): Promise<boolean> {
  try {
    await access(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Files of ours in a data dir that a copy must not carry over (they describe the original's server). */
const NOT_COPIED = new Set([SERVER_INFO_FILE, SERVER_LOCK_FILE, SERVER_LOG_FILE]);

export interface DataDirSnapshot {
  readonly dir: string;
  remove(): Promise<void>;
}

/**
 * A private, writable copy of a read-only data dir, for a server that only serves reads. The
 * original is never written. The copy is removed by `remove()`, or when this process exits.
 */
export async function snapshotDataDir(dataDir: string): Promise<DataDirSnapshot> {
  const dir = await mkdtemp(join(tmpdir(), "atrium-chroma-readonly-"));
  const removeOnExit = onExit(() => rmSync(dir, { recursive: true, force: true }));
  try {
    await cp(dataDir, dir, { recursive: true, filter: (source) => !NOT_COPIED.has(basename(source)) });
    await makeWritable(dir); // the copy keeps the originals' modes; the server must write its copy
  } catch (error) {
    removeOnExit();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let removed: Promise<void> | undefined;
  return {
    dir,
    remove() {
      removed ??= (async () => {
        removeOnExit();
        await rm(dir, { recursive: true, force: true });
      })();
      return removed;
    },
  };
}

async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await makeWritable(path);
    else if (entry.isFile()) await chmod(path, 0o600);
  }
}
