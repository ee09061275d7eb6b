import { AsyncLocalStorage } from "node:async_hooks";
import { countNewlines } from "../docs-folder/chunk-page.js";
import type { PageChunk } from "../store/doc-store.js";

/**
 * Page texts one call sees instead of the real pages. Grep runs inside such a scope with sparse
 * pages (below); AsyncLocalStorage keeps the scope to that call's own async chain, so another
 * command of the same session running at the same time still reads the real pages.
 */
const views = new AsyncLocalStorage<ReadonlyMap<string, string>>();

export function withPageViews<T>(pages: ReadonlyMap<string, string>, run: () => Promise<T>): Promise<T> {
  return views.run(pages, run);
}

/** The text the current call sees for `path`, when a view replaces it. */
export function pageView(path: string): string | undefined {
  return views.getStore()?.get(path);
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
