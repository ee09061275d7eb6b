import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

import { IngestError } from "../errors.js";
export interface DocFile {
  /** Absolute path on disk. */
  file: string;
  /** Path relative to the docs dir with "/" separators ("guides/intro.mdx"). */
  relative: string;
  /** The page path in the filesystem ("/guides/intro.mdx"). */
  page: string;
  kind: "markdown" | "navigation";
}

const MARKDOWN = /\.(md|mdx)$/i;
const SKIPPED_DIRECTORIES = new Set(["node_modules"]);

/**
 * The files ingest stores, sorted by page path: every .md/.mdx page, plus `docs.json` at the
 * root (Mintlify's navigation) so `cat /docs.json` works. Dot-files and dot-directories,
 * node_modules and symbolic links are skipped: they are not docs, and links could leave the dir.
 */
export async function walkDocs(dir: string): Promise<DocFile[]> {
  const info = await stat(dir).catch((error: NodeJS.ErrnoException) => {
    throw new IngestError(
      `Docs dir ${dir} can't be read (${error.code ?? error.message}); pass a directory of .md/.mdx pages`,
    );
  });
  if (!info.isDirectory()) throw new IngestError(`Docs dir ${dir} is not a directory`);
  const found: DocFile[] = [];
  await walk(dir, "", found);
  found.sort((a, b) => (a.page < b.page ? -1 : a.page > b.page ? 1 : 0));
  return found;
}

async function walk(root: string, prefix: string, found: DocFile[]): Promise<void> {
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name)) await walk(root, relative, found);
    } else if (entry.isFile()) {
      const kind = MARKDOWN.test(entry.name)
        ? "markdown"
        : relative === "docs.json"
          ? "navigation"
          : undefined;
      if (kind) found.push({ file: join(root, relative), relative, page: `/${relative}`, kind });
    }
  }
}
