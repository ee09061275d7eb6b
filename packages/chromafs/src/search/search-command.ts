import { errorMessage, rethrowIfFatal } from "@atrium/spec";
import { type Command, defineCommand } from "just-bash";
import type { Access, DocStore, SearchHit } from "../doc-store/doc-store.js";
import { noteStoreFailure } from "../doc-store/store-failures.js";
import { defineFlags, sets } from "../flags/flag-table.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../limits.js";
import { SEARCH_DEFAULT_HITS, SEARCH_SNIPPET_CHARS } from "../tuning.js";
import { queryWords } from "./query-words.js";
import { windowAround } from "./snippet.js";

const USAGE = 'usage: search [-n COUNT] "<query>"\n';

/** `-n COUNT` and `-h`; any other word that starts with `-` is part of the query. */
const SEARCH_FLAGS = defineFlags<{ limit: number; help: boolean }>(
  [
    {
      short: "n",
      long: "limit",
      value: "required",
      apply: (o, value) => {
        const count = Number(value);
        if (!Number.isInteger(count) || count < 1) return `invalid count '${value}'`;
        o.limit = Math.min(count, DEFAULT_CHROMAFS_LIMITS.maxSearchHits);
      },
    },
    { short: "h", long: "help", apply: sets({ help: true }) },
  ],
  { unknown: "operand" },
);

/**
 * One line per hit: `path: snippet`, whitespace collapsed and cut to SEARCH_SNIPPET_CHARS around
 * the first word of `query` it holds (from the start without a query). Hits with a score of 0
 * (a store's nearest neighbours that hold no query word, there only to fill the limit) are left
 * out: they are no evidence.
 */
export function formatSearchHits(hits: readonly SearchHit[], query = ""): string {
  const terms = queryWords(query);
  return hits
    .filter((hit) => hit.score > 0)
    .map((hit) => `${hit.path}: ${windowAround(hit.snippet, terms, SEARCH_SNIPPET_CHARS)}\n`)
    .join("");
}

/**
 * `search "<query>"`: the store's semantic/hybrid search, limited to pages the session may see.
 * Exit status follows grep: 0 with hits, 1 without, 2 on bad usage or a store failure.
 */
export function createSearchCommand(store: DocStore, access: Access): Command {
  return defineCommand("search", async (args) => {
    const parsed = SEARCH_FLAGS.parse(args, { limit: SEARCH_DEFAULT_HITS, help: false });
    if (!parsed.ok) {
      // The one option with a value is the count: without one, it is an empty count.
      const problem = parsed.problem ?? "invalid count ''";
      return { stdout: "", stderr: `search: ${problem}\n${USAGE}`, exitCode: 2 };
    }
    const { limit, help } = parsed.options;
    if (help) return { stdout: USAGE, stderr: "", exitCode: 0 };
    const query = parsed.operands.join(" ").trim();
    if (!query) return { stdout: "", stderr: USAGE, exitCode: 2 };
    let hits: SearchHit[];
    try {
      hits = await store.search(query, access, limit);
    } catch (error) {
      noteStoreFailure(error, { command: "search" });
      rethrowIfFatal(error);
      const message = errorMessage(error);
      return { stdout: "", stderr: `search: ${message}\n`, exitCode: 2 };
    }
    const stdout = formatSearchHits(hits.slice(0, limit), query);
    return { stdout, stderr: "", exitCode: stdout ? 0 : 1 };
  });
}
