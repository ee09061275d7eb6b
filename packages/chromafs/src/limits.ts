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
  maxSharedPageCacheBytes: number;
  /**
   * Bytes of chunk text a ChromaDocStore keeps for grep (all sessions of the store, across
   * TreeCaches): chunks are keyed by id, which names the page revision, so they never go stale.
   */
  maxStoreChunkCacheBytes: number;
  /**
   * How long a ChromaDocStore trusts the collection's tree digest it last read before reading it
   * again: grep answered from the grep index and the chunk cache asks the server nothing else,
   * so a re-ingest (a page changed or restricted) reaches it within this time (the store option
   * `treeRecheckMs: 0` makes every command read it). Every other store call notices a re-ingest at once, as before.
   */
  storeTreeRecheckMs: number;
  /** Largest decompressed grep index a store loads (a corrupt or hostile one can't balloon memory). */
  maxGrepIndexBytes: number;
  /** Output the agent `bash` tool and the MCP shell return per stream; the rest is cut with a note. */
  maxToolOutputBytes: number;
  /** Wall-clock limit for one command run through the tool, MCP server or CLI. */
  commandTimeoutMs: number;
  /** The most hits `search` prints, whatever `-n` (or the tool's `limit`) asks for. */
  maxSearchHits: number;
  /** The longest grep pattern the accelerator translates; longer ones run the plain scan. */
  maxGrepPatternChars: number;
  /**
   * Instructions of the automaton grep builds for `-o`'s longest match; a larger one (big
   * bounded repeats) prints the regex's own match instead.
   */
  maxGrepLongestMatchInstructions: number;
  /** Bytes of stdout and of stderr the CLI's shell (`atrium-docs sh`) prints per command before cutting. */
  maxShellOutputBytes: number;
  /**
   * just-bash limits of a docs session: generous for reading, bounded for loops. just-bash also
   * bounds grep's and rg's work on one file by the loop limit, and one command's output by the
   * output limit, so a session gets at least what the largest page needs (`sessionExecutionLimits`).
   */
  maxSessionCommands: number;
  maxSessionLoopIterations: number;
  maxSessionOutputBytes: number;
  maxSessionFileSystemBytes: number;
  /**
   * The largest page, one limit for the whole path: ingest (and `LocalFolderStore`) refuses a
   * bigger file with an error naming it, and every page it accepts is printed whole by `cat` in
   * a session (and by `atrium-docs sh`) and searched by `grep` and `rg`.
   */
  maxPageBytes: number;
  /** The most lines a page may have (grep's work on a page grows with its lines); same reach as `maxPageBytes`. */
  maxPageLines: number;
  /** Most pages one ingest accepts (the tree is fetched whole at session start). */
  maxIngestPages: number;
  /** Largest decompressed tree JSON accepted, in bytes (a corrupt or hostile tree can't balloon memory). */
  maxTreeJsonBytes: number;
  /**
   * Query words search ranks with, the first ones of the query (stop words dropped first). Each is
   * a lookup in the store's grep index (a server query only without one); 8 cut the answering
   * words off long questions ("…, and how long until the certificate works?").
   */
  maxSearchQueryWords: number;
  /**
   * Worker threads a `SessionWorkerPool` runs commands on (default: the machine's available
   * parallelism). Each holds its own store client and page cache (a share of
   * `maxSharedPageCacheBytes`).
   */
  poolWorkers: number;
  /** Commands one pool worker runs at once, interleaved (sessions past it wait their turn, round-robin). */
  maxConcurrentCommandsPerWorker: number;
  /** Commands one pooled session may have waiting behind its running one; more are refused. */
  maxQueuedCommandsPerSession: number;
}

export const DEFAULT_CHROMAFS_LIMITS: Readonly<ChromafsLimits> = Object.freeze({
  maxSharedPageCacheBytes: 128 * 1024 * 1024,
  maxStoreChunkCacheBytes: 64 * 1024 * 1024,
  maxGrepIndexBytes: 256 * 1024 * 1024,
  storeTreeRecheckMs: 500,
  maxToolOutputBytes: 32 * 1024,
  commandTimeoutMs: 30_000,
  maxSearchHits: 50,
  maxGrepPatternChars: 1_000,
  maxGrepLongestMatchInstructions: 20_000,
  maxShellOutputBytes: 8 * 1024 * 1024,
  maxSessionCommands: 10_000,
  maxSessionLoopIterations: 10_000,
  maxSessionOutputBytes: 16 * 1024 * 1024,
  maxSessionFileSystemBytes: 64 * 1024 * 1024,
  maxPageBytes: 4 * 1024 * 1024,
  maxPageLines: 50_000,
  maxIngestPages: 200_000,
  maxTreeJsonBytes: 256 * 1024 * 1024,
  maxSearchQueryWords: 16,
  poolWorkers: availableParallelism(),
  maxConcurrentCommandsPerWorker: 4,
  maxQueuedCommandsPerSession: 64,
});

const CHROMAFS_LIMIT_KINDS: LimitKinds<ChromafsLimits> = {
  maxSharedPageCacheBytes: "count",
  maxStoreChunkCacheBytes: "count",
  maxGrepIndexBytes: "count",
  storeTreeRecheckMs: "duration",
  maxToolOutputBytes: "count",
  commandTimeoutMs: "duration",
  maxSearchHits: "count",
  maxGrepPatternChars: "count",
  maxGrepLongestMatchInstructions: "count",
  maxShellOutputBytes: "count",
  maxSessionCommands: "count",
  maxSessionLoopIterations: "count",
  maxSessionOutputBytes: "count",
  maxSessionFileSystemBytes: "count",
  maxPageBytes: "count",
  maxPageLines: "count",
  maxIngestPages: "count",
  maxTreeJsonBytes: "count",
  maxSearchQueryWords: "count",
  poolWorkers: "count",
  maxConcurrentCommandsPerWorker: "count",
  maxQueuedCommandsPerSession: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveChromafsLimits(partial: Partial<ChromafsLimits> = {}): Readonly<ChromafsLimits> {
  return resolveLimitValues("@atrium/chromafs", DEFAULT_CHROMAFS_LIMITS, CHROMAFS_LIMIT_KINDS, partial);
}
