import { rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand } from "just-bash";
import { SEARCH_DEFAULT_HITS, SEARCH_MAX_HITS, SEARCH_SNIPPET_CHARS } from "../limits.js";
import type { Access, DocStore, SearchHit } from "../store/doc-store.js";

const USAGE = 'usage: search [-n COUNT] "<query>"\n';

/** One line per hit: `path: snippet`, whitespace collapsed and cut to SEARCH_SNIPPET_CHARS. */
export function formatSearchHits(hits: readonly SearchHit[]): string {
  return hits
    .map((hit) => {
      const flat = hit.snippet.replace(/\s+/g, " ").trim();
      const chars = [...flat];
      const snippet =
        chars.length > SEARCH_SNIPPET_CHARS ? `${chars.slice(0, SEARCH_SNIPPET_CHARS - 1).join("")}…` : flat;
      return `${hit.path}: ${snippet}\n`;
    })
    .join("");
}

/**
 * `search "<query>"`: the store's semantic/hybrid search, limited to pages the session may see.
 * Exit status follows grep: 0 with hits, 1 without, 2 on bad usage or a store failure.
 */
export function createSearchCommand(store: DocStore, access: Access): Command {
  return defineCommand("search", async (args) => {
    let limit = SEARCH_DEFAULT_HITS;
    const words: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i]!;
      if (arg === "-n" || arg === "--limit") {
        const value = Number(args[++i]);
        if (!Number.isInteger(value) || value < 1) {
          return { stdout: "", stderr: `search: invalid count '${args[i] ?? ""}'\n${USAGE}`, exitCode: 2 };
        }
        limit = Math.min(value, SEARCH_MAX_HITS);
      } else if (arg === "-h" || arg === "--help") {
        return { stdout: USAGE, stderr: "", exitCode: 0 };
      } else words.push(arg);
    }
    const query = words.join(" ").trim();
    if (!query) return { stdout: "", stderr: USAGE, exitCode: 2 };
    let hits: SearchHit[];
    try {
      hits = await store.search(query, access, limit);
    } catch (error) {
      rethrowIfFatal(error);
      const message = error instanceof Error ? error.message : String(error);
      return { stdout: "", stderr: `search: ${message}\n`, exitCode: 2 };
    }
    return { stdout: formatSearchHits(hits.slice(0, limit)), stderr: "", exitCode: hits.length ? 0 : 1 };
  });
}
