import { documentsById } from "../../collection-schema/documents-by-id.js";
import { chunkId } from "../../collection-schema/page-revision.js";
import type { Access } from "../../doc-store/doc-store.js";
import { DocStoreError } from "../../errors.js";
import type { PathTreeFile } from "../../tree/path-tree.js";
import type { ChromaConnection } from "./connection.js";
import { isVisibleIn, type TreeSnapshot, type TreeSnapshots } from "./tree-snapshot.js";

/**
 * Full texts of the pages among `paths` that `access` may see. A page whose chunks are not all
 * there is read again after a tree re-read (a re-ingest may have moved it to a new revision),
 * and still missing, reported: never assembled short.
 */
export async function readPages(
  connection: ChromaConnection,
  snapshots: TreeSnapshots,
  paths: readonly string[],
  access: Access,
): Promise<Map<string, string>> {
  const wanted = [...new Set(paths)];
  let snapshot = await snapshots.current();
  let pages = await fetchPages(connection, snapshot, wanted, access);
  const incomplete = wanted.filter((path) => pages.get(path) === null);
  if (incomplete.length > 0) {
    snapshot = await snapshots.reload();
    const retried = await fetchPages(connection, snapshot, incomplete, access);
    pages = new Map([...pages, ...retried]);
  }
  const result = new Map<string, string>();
  for (const [path, text] of pages) {
    if (text === null) {
      throw new DocStoreError(
        `${connection.description}: the chunks of ${path} are missing; re-run ingest for this collection`,
      );
    }
    result.set(path, text);
  }
  return result;
}

/** Texts of the visible pages among `paths`; null marks a page whose chunks are missing. */
async function fetchPages(
  connection: ChromaConnection,
  snapshot: TreeSnapshot,
  paths: string[],
  access: Access,
): Promise<Map<string, string | null>> {
  const visible = paths.filter((path) => isVisibleIn(snapshot, path, access));
  const ids = visible.flatMap((path) => {
    const file = snapshot.tree.files[path] as PathTreeFile;
    const revision = snapshot.revisions.get(path) as string;
    return Array.from({ length: file.chunks }, (_, index) => chunkId(path, revision, index));
  });
  // Only ids of pages the tree shows this caller are asked for: the request itself is the
  // access filter (a `where` on top would double the cost of the biggest query there is). A
  // chunk served without its document is missing, not empty: the page is then retried after a
  // tree re-read and reported, never assembled short.
  const texts = await documentsById(connection.collection, ids);
  const pages = new Map<string, string | null>();
  for (const path of visible) {
    const file = snapshot.tree.files[path] as PathTreeFile;
    const revision = snapshot.revisions.get(path) as string;
    const parts: string[] = [];
    for (let index = 0; index < file.chunks; index++) {
      const text = texts.get(chunkId(path, revision, index));
      if (text === undefined) break;
      parts.push(text);
    }
    pages.set(path, parts.length === file.chunks ? parts.join("") : null);
  }
  return pages;
}
