import { type LimitKinds, resolveLimitValues } from "@atrium/kit";

/**
 * Every limit @atrium/palace enforces, in one place (heuristics that only trade speed or ranking
 * quality are in `tuning.ts`): the palace's, the knowledge graph's and a mining run's, each set
 * resolved on its own (the graph and a mining run also work without a palace). Options that
 * override one go through its `resolve...Limits`, so a bad value is refused naming the field.
 */
export interface PalaceLimits {
  /** The longest drawer, in characters; a longer draft is refused (miners chunk below it). */
  maxDrawerChars: number;
  /** Drafts one `file` / `replaceSource` call accepts (one SQLite transaction holds them all). */
  maxBatchDrafts: number;
  /** Characters of a wing, room, hall, source, speaker, turn or session id. */
  maxNameChars: number;
  /** Keys of one drawer's metadata. */
  maxMetadataKeys: number;
  /** How long a writer waits for another process's write lock before failing (SQLite busy_timeout). */
  busyTimeoutMs: number;
  /** The most hits one search returns (its `k`). */
  maxSearchHits: number;
  /** Characters of a search query (or a duplicate check's content). */
  maxQueryChars: number;
  /** Drawers neighbour expansion adds on each side of a hit. */
  maxNeighbours: number;
  /** Drawers one `list` page returns (and one diary read, room recall or tunnel destination). */
  maxListDrawers: number;
  /** Characters of the identity (L0) text in palace.json. */
  maxIdentityChars: number;
  /** Bytes of one line an import reads (a drawer plus its JSON). */
  maxImportLineBytes: number;
  /** The largest token budget a wake-up accepts (it reads candidates in proportion). */
  maxWakeUpTokens: number;
}

export const DEFAULT_PALACE_LIMITS: Readonly<PalaceLimits> = Object.freeze({
  maxDrawerChars: 100_000,
  maxBatchDrafts: 20_000,
  maxNameChars: 512,
  maxMetadataKeys: 64,
  busyTimeoutMs: 30_000,
  maxSearchHits: 200,
  maxQueryChars: 8_000,
  maxNeighbours: 5,
  maxListDrawers: 1_000,
  maxIdentityChars: 4_000,
  maxImportLineBytes: 1_000_000,
  maxWakeUpTokens: 8_000,
});

const PALACE_LIMIT_KINDS: LimitKinds<PalaceLimits> = {
  maxDrawerChars: "count",
  maxBatchDrafts: "count",
  maxNameChars: "count",
  maxMetadataKeys: "count",
  busyTimeoutMs: "duration",
  maxSearchHits: "count",
  maxQueryChars: "count",
  maxNeighbours: "count",
  maxListDrawers: "count",
  maxIdentityChars: "count",
  maxImportLineBytes: "count",
  maxWakeUpTokens: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolvePalaceLimits(partial: Partial<PalaceLimits> = {}): Readonly<PalaceLimits> {
  return resolveLimitValues("@atrium/palace", DEFAULT_PALACE_LIMITS, PALACE_LIMIT_KINDS, partial);
}

/**
 * Every limit of the knowledge graph. Facts arrive from agents and MCP clients, so names, counts
 * and the reach of a traversal are bounded.
 */
export interface KnowledgeGraphLimits {
  /** Characters of an entity name or alias (after trimming). */
  maxEntityNameChars: number;
  /** Characters of an entity type ("person", "place"). */
  maxEntityTypeChars: number;
  /** Aliases one entity may carry. */
  maxEntityAliases: number;
  /** Characters of a predicate ("lives_in"). */
  maxPredicateChars: number;
  /** Characters of a source drawer id recorded on a fact. */
  maxSourceIdChars: number;
  /** Facts one `query` or `timeline` returns at most, whatever its `limit` asks for. */
  maxQueryFacts: number;
  /** Hops `neighbours` may walk from its start entity (its `depth`). */
  maxTraversalHops: number;
  /** Entities one `neighbours` call visits at most (it stops widening there and says so). */
  maxTraversalNodes: number;
  /** Lines `factsFor` renders at most. */
  maxFactLines: number;
  /** Rows one `import` call accepts. */
  maxImportRows: number;
}

export const DEFAULT_KNOWLEDGE_GRAPH_LIMITS: Readonly<KnowledgeGraphLimits> = Object.freeze({
  maxEntityNameChars: 200,
  maxEntityTypeChars: 64,
  maxEntityAliases: 64,
  maxPredicateChars: 100,
  maxSourceIdChars: 200,
  maxQueryFacts: 1_000,
  maxTraversalHops: 4,
  maxTraversalNodes: 1_000,
  maxFactLines: 200,
  maxImportRows: 5_000_000,
});

const KNOWLEDGE_GRAPH_LIMIT_KINDS: LimitKinds<KnowledgeGraphLimits> = {
  maxEntityNameChars: "count",
  maxEntityTypeChars: "count",
  maxEntityAliases: "count",
  maxPredicateChars: "count",
  maxSourceIdChars: "count",
  maxQueryFacts: "count",
  maxTraversalHops: "count",
  maxTraversalNodes: "count",
  maxFactLines: "count",
  maxImportRows: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveKnowledgeGraphLimits(
  partial: Partial<KnowledgeGraphLimits> = {},
): Readonly<KnowledgeGraphLimits> {
  return resolveLimitValues(
    "@atrium/palace knowledge graph",
    DEFAULT_KNOWLEDGE_GRAPH_LIMITS,
    KNOWLEDGE_GRAPH_LIMIT_KINDS,
    partial,
  );
}

/**
 * Every limit of a mining run. Files come from anywhere on disk (exports, whole repositories),
 * so what is read and how large a drawer may grow are bounded. A run files into any `DrawerSink`.
 */
export interface MineLimits {
  /**
   * Characters of one mined drawer. A longer message or section is cut at paragraph, line,
   * sentence or word boundaries into several drawers. Part of every source's hash: changing it
   * re-files everything on the next run.
   */
  maxChunkChars: number;
  /** Bytes of one project file; larger ones are left out (generated data, dumps, bundles). */
  maxProjectFileBytes: number;
  /** Bytes of one conversation export file (a Claude.ai or ChatGPT export holds every conversation). */
  maxExportFileBytes: number;
  /** Files one run walks at most; past it the run stops with an error saying so. */
  maxFiles: number;
  /**
   * Drafts filed between two vector flushes. A run defers each source's vectors and applies
   * them in rounds this large (one embedding call and one index upsert per round instead of per
   * source); it bounds how far another reader's vector leg lags behind a running mine.
   */
  maxUnflushedDrafts: number;
}

export const DEFAULT_MINE_LIMITS: Readonly<MineLimits> = Object.freeze({
  maxChunkChars: 2_000,
  maxProjectFileBytes: 1024 * 1024,
  maxExportFileBytes: 256 * 1024 * 1024,
  maxFiles: 500_000,
  maxUnflushedDrafts: 5_000,
});

const MINE_LIMIT_KINDS: LimitKinds<MineLimits> = {
  maxChunkChars: "count",
  maxProjectFileBytes: "count",
  maxExportFileBytes: "count",
  maxFiles: "count",
  maxUnflushedDrafts: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveMineLimits(partial: Partial<MineLimits> = {}): Readonly<MineLimits> {
  return resolveLimitValues("@atrium/palace mining", DEFAULT_MINE_LIMITS, MINE_LIMIT_KINDS, partial);
}
