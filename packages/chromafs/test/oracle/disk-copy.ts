import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DocStore } from "../../src/store/doc-store.js";

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
  } catch (error) {
    remove(); // a copy that failed half-way is nobody's to clean up later
    throw error;
  }
  return { root, remove };
}
