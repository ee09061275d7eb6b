import type { Metadata, WhereDocument } from "@atrium/chroma";
import { rethrowIfFatal } from "@atrium/spec";
import { loadedChroma } from "../../collection-schema/load-chroma.js";
import { chunksCarryLines } from "../../collection-schema/page-revision.js";
import type { Access, PageChunk, TextFilter } from "../../doc-store/doc-store.js";
import { regexLiteral } from "../../doc-store/regex-literal.js";
import { accessWhereFor, pathListWhere } from "./access-where.js";
import type { ChromaConnection } from "./connection.js";
import type { GrepCache } from "./grep-cache.js";
import { type ChunkRow, isVisibleIn, type TreeSnapshots, visiblePaths } from "./tree-snapshot.js";

/** Above this many paths, `within` is applied to the answer rather than sent as a filter. */
const WITHIN_AS_FILTER_MAX_PATHS = 200;

/** The parts of a `ChromaDocStore` a text filter runs through. */
export interface FilterParts {
  connection: ChromaConnection;
  snapshots: TreeSnapshots;
  grep: GrepCache;
}

/** `DocStore.findPages`: from the grep index and chunk cache when they can answer, else the server. */
export async function findPages(
  parts: FilterParts,
  filter: TextFilter,
  access: Access,
  within?: readonly string[],
): Promise<string[]> {
  const indexed = await parts.grep.indexedMatches(filter, access, within);
  if (indexed) return [...new Set(indexed.map((chunk) => chunk.page))];
  const found = await matchingChunks(parts, filter, access, within, false);
  if ("everyVisible" in found) return found.everyVisible;
  return [...new Set(found.rows.map((row) => row.page))].sort();
}

/** `DocStore.findChunks`: as `findPages`, with the chunks, in page then chunk order. */
export async function findChunks(
  parts: FilterParts,
  filter: TextFilter,
  access: Access,
  within?: readonly string[],
): Promise<Map<string, PageChunk[]> | null> {
  // Chunks cut before they carried `line` (chunker 1) can't be placed in their page.
  if (!chunksCarryLines((await parts.snapshots.current()).tree.chunking)) return null;
  const indexed = await parts.grep.indexedMatches(filter, access, within);
  if (indexed) {
    const pages = new Map<string, PageChunk[]>();
    for (const { page, index, line, text } of indexed) {
      const chunks = pages.get(page);
      if (chunks) chunks.push({ index, line, text });
      else pages.set(page, [{ index, line, text }]);
    }
    return pages;
  }
  const found = await matchingChunks(parts, filter, access, within, true);
  if ("everyVisible" in found) return null;
  const pages = new Map<string, PageChunk[]>();
  for (const row of found.rows) {
    const line = row.metadata?.line;
    // A damaged chunk without a usable line: grep reads whole pages instead.
    if (typeof line !== "number" || !Number.isSafeInteger(line) || line < 1) return null;
    const chunks = pages.get(row.page) ?? [];
    chunks.push({ index: row.index, line, text: row.text });
    pages.set(row.page, chunks);
  }
  for (const chunks of pages.values()) chunks.sort((a, b) => a.index - b.index);
  return new Map([...pages].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The current, visible chunks that may match `filter` (with their texts and metadata when
 * `withTexts`), or every visible page in scope when the filter can't narrow anything.
 */
async function matchingChunks(
  { connection, snapshots }: FilterParts,
  filter: TextFilter,
  access: Access,
  within: readonly string[] | undefined,
  withTexts: boolean,
): Promise<{ everyVisible: string[] } | { rows: ChunkRow[] }> {
  const snapshot = await snapshots.current();
  const scope = within ? within.filter((path) => isVisibleIn(snapshot, path, access)) : undefined;
  if (scope && scope.length === 0) return { rows: [] };
  const document = documentFilter(filter);
  const everyVisible = () => ({
    everyVisible: (scope ? [...new Set(scope)] : visiblePaths(snapshot, access)).sort(),
  });
  if (!document) return everyVisible();
  // A short `within` list is the cheapest filter there is; a long one (grep -r over most of
  // the tree) costs more than it saves, so the access filter runs and the scope is applied here.
  const inScope = scope ? new Set(scope) : undefined;
  const narrow = inScope && inScope.size <= WITHIN_AS_FILTER_MAX_PATHS;
  let result: { ids: string[]; documents: (string | null)[]; metadatas: (Metadata | null)[] };
  try {
    const where = narrow ? pathListWhere("$in", [...inScope]) : accessWhereFor(snapshot, access);
    result = await connection.collection.get({
      where,
      whereDocument: document,
      include: withTexts ? ["documents", "metadatas"] : [],
    });
  } catch (error) {
    rethrowIfFatal(error);
    // A pattern the server's regex engine rejects can't narrow anything: every visible page is
    // a (correct) superset of the matches, and grep itself decides.
    if (isRejectedFilter(error)) return everyVisible();
    throw error;
  }
  const rows = result.ids.map((id, row) => ({
    id,
    text: result.documents[row] ?? "",
    metadata: result.metadatas[row] ?? undefined,
  }));
  const checked = await snapshots.checkRows(rows, access);
  return { rows: inScope ? checked.filter((row) => inScope.has(row.page)) : checked };
}

/** A `TextFilter` as the server's `whereDocument`; undefined for one that narrows nothing. */
export function documentFilter(filter: TextFilter): WhereDocument | undefined {
  if (filter.kind === "contains") {
    if (filter.text === "") return undefined;
    return filter.caseInsensitive
      ? { $regex: `(?i)${regexLiteral(filter.text)}` }
      : { $contains: filter.text };
  }
  if (filter.pattern === "") return undefined;
  return { $regex: filter.caseInsensitive ? `(?i)${filter.pattern}` : filter.pattern };
}

/** A filter the server refused (its Rust regex engine can't parse it), as `@atrium/chroma` classifies it. */
function isRejectedFilter(error: unknown): boolean {
  return loadedChroma()?.asFilterRejected(error) !== undefined;
}
