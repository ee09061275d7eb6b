import { ConfigError } from "@atrium/spec";
import { expect, it } from "vitest";
import { DEFAULT_KNOWLEDGE_GRAPH_LIMITS, resolveKnowledgeGraphLimits } from "./kg-limits.js";

it("keeps the defaults and applies checked overrides", () => {
  expect(resolveKnowledgeGraphLimits()).toEqual(DEFAULT_KNOWLEDGE_GRAPH_LIMITS);
  expect(resolveKnowledgeGraphLimits({ traversalMaxDepth: 2 }).traversalMaxDepth).toBe(2);
});

it("refuses a bad or unknown limit by name", () => {
  expect(() => resolveKnowledgeGraphLimits({ traversalMaxDepth: 0 })).toThrow(
    new ConfigError(
      "@atrium/palace knowledge graph limit traversalMaxDepth must be a positive integer, got 0",
    ),
  );
  expect(() => resolveKnowledgeGraphLimits({ maxDepth: 3 } as never)).toThrow(
    /^@atrium\/palace knowledge graph has no limit "maxDepth"; known limits: entityNameMaxChars, /,
  );
});
