import { schemaTool, type Tool, ValidationError } from "@atrium/spec";
import { z } from "zod";
import type { KnowledgeGraph } from "../kg/index.js";
import { defined, isoTime, optional, text, wholeNumber } from "./tool-fields.js";

const wingField = optional(
  text("a wing name").describe(
    "The wing the facts belong to (default: every wing you read; for writes, your own)",
  ),
);

const entityField = (what: string) => text(`${what}'s name`).describe(`The ${what} (a name or alias)`);

/** kg_query, kg_add, kg_invalidate, kg_timeline, kg_stats, traverse: the temporal knowledge graph. */
export function knowledgeGraphTools(kg: KnowledgeGraph): Tool[] {
  const maxRows = kg.limits.maxQueryFacts;
  const maxDepth = kg.limits.maxTraversalHops;
  return [
    schemaTool({
      name: "kg_query",
      description:
        "Facts (subject predicate object, with validFrom/validTo) matching every field given; with asOf, only facts true at that time. Names resolve through aliases.",
      inputSchema: z.strictObject({
        wing: wingField,
        subject: optional(entityField("subject")),
        predicate: optional(text("a predicate such as lives_in").describe("A relation such as lives_in")),
        object: optional(entityField("object")),
        asOf: optional(isoTime("asOf").describe("ISO 8601: only facts true at that time")),
        limit: optional(wholeNumber("limit", 1, maxRows).describe("Most facts to return")),
      }),
      execute: (query) => ({ facts: kg.query(defined(query)) }),
    }),
    schemaTool({
      name: "kg_add",
      description:
        "Record a fact: subject predicate object (e.g. alice lives_in Lisbon), true from validFrom (until validTo). A fact contradicting an open one of a single-valued predicate is reported in conflicts, not silently stored; onConflict: invalidate ends the old fact instead, keep-both stores both.",
      inputSchema: z.strictObject({
        wing: wingField,
        subject: entityField("subject"),
        predicate: text("a predicate such as lives_in").describe("A relation, words joined by _ (lives_in)"),
        object: entityField("object"),
        validFrom: optional(
          isoTime("validFrom").describe("ISO 8601 (or YYYY, YYYY-MM): when it became true"),
        ),
        validTo: optional(isoTime("validTo").describe("ISO 8601: when it stopped being true")),
        sourceDrawerId: optional(text("a drawer id").describe("The drawer the fact was read from")),
        confidence: optional(
          z
            .number({ error: "must be a number from 0 to 1 (confidence)" })
            .min(0, { error: "must be a number from 0 to 1 (confidence)" })
            .max(1, { error: "must be a number from 0 to 1 (confidence)" })
            .describe("0..1, how sure you are"),
        ),
        onConflict: optional(
          z
            .enum(["report", "invalidate", "keep-both"], { error: "must be report, invalidate or keep-both" })
            .describe("What to do when the fact contradicts a stored one (default report)"),
        ),
      }),
      execute({ onConflict, ...fact }) {
        return kg.add(defined(fact) as typeof fact, defined({ onConflict }));
      },
    }),
    schemaTool({
      name: "kg_invalidate",
      description:
        "Mark facts as no longer true from `at` (default now): the fact with `id`, or every open fact subject predicate object. Nothing is deleted; kg_query with an earlier asOf still finds them.",
      inputSchema: z.strictObject({
        id: optional(text("a fact id (t_...)").describe("The fact's id, from kg_query or kg_timeline")),
        wing: wingField,
        subject: optional(entityField("subject")),
        predicate: optional(text("a predicate")),
        object: optional(entityField("object")),
        at: optional(isoTime("at").describe("ISO 8601: when it stopped being true (default now)")),
      }),
      execute({ id, wing, subject, predicate, object, at }) {
        const named = [subject, predicate, object].filter((value) => value !== undefined).length;
        if (id === undefined ? named !== 3 : named !== 0) {
          throw new ValidationError("kg_invalidate", [
            {
              path: id === undefined ? [] : ["id"],
              message:
                "give either id (one fact) or subject, predicate and object (every open fact like it), not both",
            },
          ]);
        }
        const target = id ?? { subject: subject!, predicate: predicate!, object: object! };
        return { ended: kg.invalidate(target, defined({ at, ...(id === undefined ? { wing } : {}) })) };
      },
    }),
    schemaTool({
      name: "kg_timeline",
      description: "Every fact about an entity (as subject or object), past and present, oldest first.",
      inputSchema: z.strictObject({
        entity: entityField("entity"),
        wing: wingField,
        limit: optional(wholeNumber("limit", 1, maxRows).describe("Most facts to return")),
      }),
      execute: ({ entity, limit, wing }) => ({
        entity,
        facts: kg.timeline(entity, defined({ limit, wing })),
      }),
    }),
    schemaTool({
      name: "kg_stats",
      description:
        "Counts of the knowledge graph: entities, aliases, facts (open and ended), predicates, the single-valued ones, the most used.",
      inputSchema: z.strictObject({}),
      execute: () => kg.stats(),
    }),
    schemaTool({
      name: "traverse",
      description:
        "Walk the knowledge graph from an entity: every entity within `depth` hops (facts followed both ways) and the facts between them; with asOf, only facts true then. truncated: the walk hit its node limit.",
      inputSchema: z.strictObject({
        entity: entityField("start entity"),
        wing: wingField,
        depth: optional(wholeNumber("depth", 1, maxDepth).describe("Hops to walk (default 1)")),
        asOf: optional(isoTime("asOf").describe("ISO 8601: walk only facts true at that time")),
      }),
      execute: ({ entity, depth, asOf, wing }) => kg.neighbours(entity, depth ?? 1, defined({ asOf, wing })),
    }),
  ];
}
