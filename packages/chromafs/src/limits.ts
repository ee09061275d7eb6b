/**
 * Every limit of @atrium/chromafs in one place. Untrusted input reaches this package from two
 * sides (the docs themselves and the commands an agent types), so sizes and counts are bounded.
 */

/** Bytes of page text a store's shared LRU cache keeps (all sessions of one TreeCache). */
export const SHARED_PAGE_CACHE_MAX_BYTES = 128 * 1024 * 1024;

/** Pages per `readPages` call when grep prefetches its candidates (batches run in parallel). */
export const PAGE_FETCH_BATCH = 50;

/** Pages at least this large are marked `lazy` in a LocalFolderStore tree (fetched on first read). */
export const LAZY_PAGE_MIN_BYTES = 256 * 1024;

/** Output the agent `bash` tool and the MCP shell return per stream; the rest is cut with a note. */
export const TOOL_OUTPUT_MAX_BYTES = 32 * 1024;

/** Wall-clock limit for one command run through the tool, MCP server or CLI. */
export const COMMAND_TIMEOUT_MS = 30_000;

/** Hits the `search` command prints by default, and the most it prints whatever `-n` asks for. */
export const SEARCH_DEFAULT_HITS = 10;
export const SEARCH_MAX_HITS = 50;

/** Characters of the one-line snippet `search` prints per hit. */
export const SEARCH_SNIPPET_CHARS = 160;

/** The longest grep pattern the accelerator translates; longer ones run the plain scan. */
export const GREP_PATTERN_MAX_CHARS = 1_000;

/** Bytes of stdout/stderr the CLI's interactive shell prints per command before cutting. */
export const SHELL_OUTPUT_MAX_BYTES = 8 * 1024 * 1024;

/** just-bash execution limits for a docs session: generous for reading, bounded for loops. */
export const SESSION_EXECUTION_LIMITS = {
  maxCommandCount: 10_000,
  maxLoopIterations: 10_000,
  maxOutputSize: 16 * 1024 * 1024,
  maxExecutionTimeMs: COMMAND_TIMEOUT_MS,
  maxFileSystemBytes: 64 * 1024 * 1024,
} as const;
