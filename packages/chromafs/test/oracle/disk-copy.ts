import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DocStore } from "../../src/doc-store/doc-store.js";

/** The Mintlify docs corpus the repository carries (`fixtures/README.md` gives its source and licence). */
export const CORPUS_DIR = resolve(
  fileURLToPath(import.meta.url),
  "../../../../../fixtures/corpora/mintlify-docs",
);

export interface DiskCopy {
  /** The docs root on disk (what `$R` is for real bash). */
  root: string;
  remove(): void;
}

/**
 * Gives each directory the mtime of the newest page below it, which is what the session's
 * directories report (a collection stores no directory times), deepest first so setting a
 * child's time does not disturb its parent's.
 */
function setDirectoryTimes(root: string, files: Record<string, { mtime: number }>): void {
  const newest = new Map<string, number>();
  for (const [path, { mtime }] of Object.entries(files)) {
    for (let dir = posix.dirname(path); ; dir = posix.dirname(dir)) {
      newest.set(dir, Math.max(newest.get(dir) ?? 0, mtime));
      if (dir === "/") break;
    }
  }
  const deepestFirst = [...newest].sort(([a], [b]) => b.split("/").length - a.split("/").length);
  for (const [dir, mtime] of deepestFirst) utimesSync(join(root, dir), new Date(mtime), new Date(mtime));
}

/**
 * Writes every page the store serves (read back through the store, so the copy is what the
 * filesystem shows) to a temp dir, with an empty `tmp/` matching the session's scratch mount.
 */
export async function writeDiskCopy(store: DocStore, groups: readonly string[] = []): Promise<DiskCopy> {
  const base = mkdtempSync(join(tmpdir(), "chromafs-oracle-"));
  const remove = () => rmSync(base, { recursive: true, force: true });
  const root = join(base, "root");
  try {
    const tree = await store.readTree();
    const pages = await store.readPages(Object.keys(tree.files), { groups });
    for (const [path, text] of pages) {
      const file = join(root, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      const mtime = new Date(tree.files[path]!.mtime);
      utimesSync(file, mtime, mtime);
    }
    mkdirSync(join(root, "tmp"), { recursive: true });
    setDirectoryTimes(root, tree.files);
  } catch (error) {
    remove(); // a copy that failed half-way is nobody's to clean up later
    throw error;
  }
  return { root, remove };
}
