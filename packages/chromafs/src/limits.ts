import { availableParallelism } from "node:os";
import { type LimitKinds, resolveLimitValues } from "@atrium/kit";

/**
 * Every limit of @atrium/chromafs in one place. Untrusted input reaches this package from two
 * sides (the docs themselves and the commands an agent types), so sizes and counts are bounded.
 * Heuristics that only trade speed or quality (chunk sizes, batch sizes, search thresholds) are
 * in `tuning.ts`. Options that override a limit go through `resolveChromafsLimits`.
 */
export interface ChromafsLimits {
  /** Bytes of page text a store's shared LRU cache keeps (all sessions of one TreeCache). */
  sharedPageCacheMaxBytes: number;
  /**
   * Bytes of chunk text a ChromaDocStore keeps for grep (all sessions of the store, across
   * TreeCaches): chunks are keyed by id, which names the page revision, so they never go stale.
   */
  storeChunkCacheMaxBytes: number;
  /**
   * How long a ChromaDocStore trusts the collection's tree digest it last read before reading it
   * again: grep answered from the grep index and the chunk cache asks the server nothing else,
   * so a re-ingest (a page changed or restricted) reaches it within this time (the store option
   * `treeRecheckMs: 0` makes every command read it). Every other store call notices a re-ingest at once, as before.
   */
  storeTreeRecheckMs: number;
  /** Largest decompressed grep index a store loads (a corrupt or hostile one can't balloon memory). */
  grepIndexMaxBytes: number;
  /** Output the agent `bash` tool and the MCP shell return per stream; the rest is cut with a note. */
  toolOutputMaxBytes: number;
  /** Wall-clock limit for one command run through the tool, MCP server or CLI. */
  commandTimeoutMs: number;
  /** The most hits `search` prints, whatever `-n` (or the tool's `limit`) asks for. */
  searchMaxHits: number;
  /** The longest grep pattern the accelerator translates; longer ones run the plain scan. */
  grepPatternMaxChars: number;
  /**
   * Instructions of the automaton grep builds for `-o`'s longest match; a larger one (big
   * bounded repeats) prints the regex's own match instead.
   */
  grepLongestMatchMaxInstructions: number;
  /** Bytes of stdout and of stderr the CLI's shell (`atrium-docs sh`) prints per command before cutting. */
  shellOutputMaxBytes: number;
  /**
   * just-bash limits of a docs session: generous for reading, bounded for loops. just-bash also
   * bounds grep's and rg's work on one file by the loop limit, and one command's output by the
   * output limit, so a session gets at least what the largest page needs (`sessionExecutionLimits`).
   */
  sessionMaxCommandCount: number;
  sessionMaxLoopIterations: number;
  sessionMaxOutputBytes: number;
  sessionMaxFileSystemBytes: number;
  /**
   * The largest page, one limit for the whole path: ingest (and `LocalFolderStore`) refuses a
   * bigger file with an error naming it, and every page it accepts is printed whole by `cat` in
   * a session (and by `atrium-docs sh`) and searched by `grep` and `rg`.
   */
  pageMaxBytes: number;
  /** The most lines a page may have (grep's work on a page grows with its lines); same reach as `pageMaxBytes`. */
  pageMaxLines: number;
  /** Most pages one ingest accepts (the tree is fetched whole at session start). */
  ingestMaxPages: number;
  /** Largest decompressed tree JSON accepted, in bytes (a corrupt or hostile tree can't balloon memory). */
  treeJsonMaxBytes: number;
  /**
   * Query words search ranks with, the first ones of the query (stop words dropped first). Each is
   * a lookup in the store's grep index (a server query only without one); 8 cut the answering
   * words off long questions ("…, and how long until the certificate works?").
   */
  searchMaxQueryWords: number;
  /**
   * Worker threads a `SessionWorkerPool` runs commands on (default: the machine's available
   * parallelism). Each holds its own store client and page cache (a share of
   * `sharedPageCacheMaxBytes`).
   */
  poolWorkers: number;
  /** Commands one pool worker runs at once, interleaved (sessions past it wait their turn, round-robin). */
  poolWorkerMaxConcurrentCommands: number;
  /** Commands one pooled session may have waiting behind its running one; more are refused. */
  poolSessionMaxQueuedCommands: number;
}

export const DEFAULT_CHROMAFS_LIMITS: Readonly<ChromafsLimits> = Object.freeze({
  sharedPageCacheMaxBytes: 128 * 1024 * 1024,
  storeChunkCacheMaxBytes: 64 * 1024 * 1024,
  grepIndexMaxBytes: 256 * 1024 * 1024,
  storeTreeRecheckMs: 500,
  toolOutputMaxBytes: 32 * 1024,
  commandTimeoutMs: 30_000,
  searchMaxHits: 50,
  grepPatternMaxChars: 1_000,
  grepLongestMatchMaxInstructions: 20_000,
  shellOutputMaxBytes: 8 * 1024 * 1024,
  sessionMaxCommandCount: 10_000,
  sessionMaxLoopIterations: 10_000,
  sessionMaxOutputBytes: 16 * 1024 * 1024,
  sessionMaxFileSystemBytes: 64 * 1024 * 1024,
  pageMaxBytes: 4 * 1024 * 1024,
  pageMaxLines: 50_000,
  ingestMaxPages: 200_000,
  treeJsonMaxBytes: 256 * 1024 * 1024,
  searchMaxQueryWords: 16,
  poolWorkers: availableParallelism(),
  poolWorkerMaxConcurrentCommands: 4,
  poolSessionMaxQueuedCommands: 64,
});

const CHROMAFS_LIMIT_KINDS: LimitKinds<ChromafsLimits> = {
  sharedPageCacheMaxBytes: "count",
  storeChunkCacheMaxBytes: "count",
  grepIndexMaxBytes: "count",
  storeTreeRecheckMs: "duration",
  toolOutputMaxBytes: "count",
  commandTimeoutMs: "duration",
  searchMaxHits: "count",
  grepPatternMaxChars: "count",
  grepLongestMatchMaxInstructions: "count",
  shellOutputMaxBytes: "count",
  sessionMaxCommandCount: "count",
  sessionMaxLoopIterations: "count",
  sessionMaxOutputBytes: "count",
  sessionMaxFileSystemBytes: "count",
  pageMaxBytes: "count",
  pageMaxLines: "count",
  ingestMaxPages: "count",
  treeJsonMaxBytes: "count",
  searchMaxQueryWords: "count",
  poolWorkers: "count",
  poolWorkerMaxConcurrentCommands: "count",
  poolSessionMaxQueuedCommands: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveChromafsLimits(partial: Partial<ChromafsLimits> = {}): Readonly<ChromafsLimits> {
  return resolveLimitValues("@atrium/chromafs", DEFAULT_CHROMAFS_LIMITS, CHROMAFS_LIMIT_KINDS, partial);
}
