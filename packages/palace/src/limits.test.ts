import { ConfigError } from "@atrium/spec";
import { expect, it } from "vitest";
import { DEFAULT_KNOWLEDGE_GRAPH_LIMITS, resolveKnowledgeGraphLimits } from "./limits.js";

it("keeps the defaults and applies checked overrides", () => {
  expect(resolveKnowledgeGraphLimits()).toEqual(DEFAULT_KNOWLEDGE_GRAPH_LIMITS);
  expect(resolveKnowledgeGraphLimits({ maxTraversalHops: 2 }).maxTraversalHops).toBe(2);
});

it("refuses a bad or unknown limit by name", () => {
  expect(() => resolveKnowledgeGraphLimits({ maxTraversalHops: 0 })).toThrow(
    new ConfigError(
      "@atrium/palace knowledge graph limit maxTraversalHops must be a positive integer, got 0",
    ),
  );
  expect(() => resolveKnowledgeGraphLimits({ maxDepth: 3 } as never)).toThrow(
    /^@atrium\/palace knowledge graph has no limit "maxDepth"; known limits: maxEntityNameChars, /,
  );
});
