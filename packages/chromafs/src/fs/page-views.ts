import { AsyncLocalStorage } from "node:async_hooks";
import type { PageChunk } from "../doc-store/doc-store.js";
import { countNewlines } from "../docs-folder/chunk-page.js";

/**
 * Pages one call sees instead of the real pages: a page's chunks that can hold a matching line
 * (see `sparsePage`), or none for a page known to hold no match. Grep runs inside such a scope;
 * AsyncLocalStorage keeps the scope to that call's own async chain, so another command of the
 * same session running at the same time still reads the real pages.
 */
export type PageViews = ReadonlyMap<string, readonly PageChunk[]>;

const views = new AsyncLocalStorage<{ chunks: PageViews; texts: Map<string, string> }>();

export function withPageViews<T>(pages: PageViews, run: () => Promise<T>): Promise<T> {
  return views.run({ chunks: pages, texts: new Map() }, run);
}

/** The text the current call sees for `path` when a view replaces it (`sparsePage`, built once). */
export function pageView(path: string): string | undefined {
  const scope = views.getStore();
  const chunks = scope?.chunks.get(path);
  if (!scope || !chunks) return undefined;
  let text = scope.texts.get(path);
  if (text === undefined) {
    text = sparsePage(chunks) as string;
    scope.texts.set(path, text);
  }
  return text;
}

/**
 * The chunks the current call sees for `path` when a view replaces it: ChromaFs's own grep reads
 * these one by one at their line numbers rather than the sparse page, whose empty lines in
 * between would each cost it a line.
 */
export function pageViewChunks(path: string): readonly PageChunk[] | undefined {
  return views.getStore()?.chunks.get(path);
}

/**
 * A page as grep needs it when only `chunks` (in index order) can hold a matching line: those
 * chunks' texts at their own line numbers, every line between them empty, nothing after the
 * last chunk. For a pattern that cannot match an empty line, grep prints exactly what it prints
 * for the whole page — line numbers included — while reading a fraction of it. The chunks go in
 * whole rather than line by line: grep's matcher finds the matching lines in one regex scan,
 * and testing each line here first cost more than that scan saves. Null when the chunks overlap
 * (line metadata inconsistent with the texts): the caller reads whole pages instead.
 */
export function sparsePage(chunks: readonly PageChunk[]): string | null {
  const parts: string[] = [];
  let line = 1;
  for (const chunk of chunks) {
    if (chunk.line < line) return null;
    if (chunk.line > line) parts.push("\n".repeat(chunk.line - line));
    parts.push(chunk.text);
    line = chunk.line + countNewlines(chunk.text);
  }
  return parts.join("");
}

/** Whether each chunk starts after the previous one ends (the line metadata fits the texts). */
export function chunksInOrder(chunks: readonly PageChunk[]): boolean {
  let line = 1;
  for (const chunk of chunks) {
    if (chunk.line < line) return false;
    line = chunk.line + countNewlines(chunk.text);
  }
  return true;
}
