import { type LimitKinds, resolveLimitValues } from "@atrium/kit";

/**
 * Every limit of the knowledge graph. Facts arrive from agents and MCP clients, so names, counts
 * and the reach of a traversal are bounded. Kept apart from the package's `src/limits.ts` (the
 * core's) so the graph can be used and tested on its own; the palace passes overrides through.
 */
export interface KnowledgeGraphLimits {
  /** Characters of an entity name or alias (after trimming). */
  entityNameMaxChars: number;
  /** Characters of an entity type ("person", "place"). */
  entityTypeMaxChars: number;
  /** Aliases one entity may carry. */
  entityMaxAliases: number;
  /** Characters of a predicate ("lives_in"). */
  predicateMaxChars: number;
  /** Characters of a source drawer id recorded on a fact. */
  sourceIdMaxChars: number;
  /** Rows one `query` or `timeline` returns at most, whatever its `limit` asks for. */
  queryMaxRows: number;
  /** Hops `neighbours` may walk from its start entity. */
  traversalMaxDepth: number;
  /** Entities one `neighbours` call visits at most (it stops widening there and says so). */
  traversalMaxNodes: number;
  /** Lines `factsFor` renders at most. */
  factsMaxLines: number;
  /** Rows one `import` call accepts. */
  importMaxRows: number;
}

export const DEFAULT_KNOWLEDGE_GRAPH_LIMITS: Readonly<KnowledgeGraphLimits> = Object.freeze({
  entityNameMaxChars: 200,
  entityTypeMaxChars: 64,
  entityMaxAliases: 64,
  predicateMaxChars: 100,
  sourceIdMaxChars: 200,
  queryMaxRows: 1_000,
  traversalMaxDepth: 4,
  traversalMaxNodes: 1_000,
  factsMaxLines: 200,
  importMaxRows: 5_000_000,
});

const KNOWLEDGE_GRAPH_LIMIT_KINDS: LimitKinds<KnowledgeGraphLimits> = {
  entityNameMaxChars: "count",
  entityTypeMaxChars: "count",
  entityMaxAliases: "count",
  predicateMaxChars: "count",
  sourceIdMaxChars: "count",
  queryMaxRows: "count",
  traversalMaxDepth: "count",
  traversalMaxNodes: "count",
  factsMaxLines: "count",
  importMaxRows: "count",
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
