import { schemaTool } from "@atrium/kit";
import { ValidationError } from "@atrium/spec";
import { z } from "zod";
import { type AddFactResult, renderFact, type Triple } from "../kg/index.js";
import type { PalaceView } from "../view/palace-view.js";
import { type PalaceTool, reading, writing } from "./tool-annotations.js";
import { defined, isoTime, optional, text, wholeNumber } from "./tool-fields.js";

/** A fact as a tool returns it: the stored fields and one readable line. */
export interface FactView extends Triple {
  /** "Caroline — lives_in → Boston (since 2023-05)" */
  text: string;
}

function factView(triple: Triple): FactView {
  return { ...triple, text: renderFact(triple) };
}

/** What kg_add tells its caller: what happened to the fact, and one line saying so. */
function addedView(result: AddFactResult) {
  const created = result.created && result.triple !== undefined;
  const lines = [
    created
      ? `Stored: ${renderFact(result.triple as Triple)}.`
      : result.triple
        ? `Already known: ${renderFact(result.triple)}.`
        : "Not stored.",
    ...result.conflicts.map((conflict) => conflict.message),
  ];
  return {
    created,
    ...(result.triple === undefined ? {} : { fact: factView(result.triple) }),
    conflicts: result.conflicts.map(({ existing, resolution, message }) => ({
      existing: factView(existing),
      resolution,
      message,
    })),
    observation: lines.join(" "),
  };
}

const wingField = optional(
  text("a wing name").describe(
    "The wing the facts belong to (default: every wing you read; for writes, your own)",
  ),
);

const entityField = (what: string) => text(`${what}'s name`).describe(`The ${what} (a name or alias)`);

/** kg_query, kg_add, kg_invalidate, kg_timeline, kg_stats, traverse: the temporal knowledge graph. */
export function knowledgeGraphTools(palace: PalaceView): PalaceTool[] {
  const kg = palace.kg;
  const { maxQueryFacts, maxTraversalHops } = kg.limits;
  const query = schemaTool({
    name: "kg_query",
    description:
      "Facts (subject — predicate → object, each true over a time span) matching every field given; with asOf, only facts true at that time. Names resolve through aliases. Returns { facts: [{ id, wing, subject, predicate, object, validFrom?, validTo?, sourceDrawerId?, text, ... }] }.",
    inputSchema: z.strictObject({
      wing: wingField,
      subject: optional(entityField("subject")),
      predicate: optional(text("a predicate such as lives_in").describe("A relation such as lives_in")),
      object: optional(entityField("object")),
      asOf: optional(isoTime("asOf").describe("ISO 8601: only facts true at that time")),
      limit: optional(wholeNumber("limit", 1, maxQueryFacts).describe("Most facts to return")),
    }),
    execute: (asked) => ({ facts: kg.query(defined(asked)).map(factView) }),
  });
  const add = schemaTool({
    name: "kg_add",
    description:
      'Record a fact, e.g. { subject: "Caroline", predicate: "lives_in", object: "Boston", validFrom: "2023-05" }, true from validFrom (until validTo). A fact contradicting an open one of a single-valued predicate is reported in conflicts, not stored; onConflict: invalidate ends the old fact instead, keep-both stores both. Returns { created, fact?, conflicts, observation }.',
    inputSchema: z.strictObject({
      wing: wingField,
      subject: entityField("subject"),
      predicate: text("a predicate such as lives_in").describe("A relation, words joined by _ (lives_in)"),
      object: entityField("object"),
      validFrom: optional(isoTime("validFrom").describe("ISO 8601 (or YYYY, YYYY-MM): when it became true")),
      validTo: optional(isoTime("validTo").describe("ISO 8601: when it stopped being true")),
      sourceDrawerId: optional(text("a drawer id").describe("The drawer (memory id) the fact was read from")),
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
    execute: ({ onConflict, ...fact }) =>
      addedView(kg.add(defined(fact) as typeof fact, defined({ onConflict }))),
  });
  const invalidate = schemaTool({
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
      const ended = kg.invalidate(target, defined({ at, ...(id === undefined ? { wing } : {}) }));
      return { ended: ended.map(factView) };
    },
  });
  const timeline = schemaTool({
    name: "kg_timeline",
    description: "Every fact about an entity (as subject or object), past and present, oldest first.",
    inputSchema: z.strictObject({
      entity: entityField("entity"),
      wing: wingField,
      limit: optional(wholeNumber("limit", 1, maxQueryFacts).describe("Most facts to return")),
    }),
    execute: ({ entity, limit, wing }) => ({
      entity,
      facts: kg.timeline(entity, defined({ limit, wing })).map(factView),
    }),
  });
  const stats = schemaTool({
    name: "kg_stats",
    description:
      "Counts of the knowledge graph: entities, aliases, facts (open and ended), predicates, the single-valued ones, the most used.",
    inputSchema: z.strictObject({}),
    execute: () => kg.stats(),
  });
  const traverse = schemaTool({
    name: "traverse",
    description:
      "Walk the knowledge graph from an entity: every entity within `depth` hops (facts followed both ways) and the facts between them; with asOf, only facts true then. truncated: the walk hit its node limit.",
    inputSchema: z.strictObject({
      entity: entityField("start entity"),
      wing: wingField,
      depth: optional(wholeNumber("depth", 1, maxTraversalHops).describe("Hops to walk (default 1)")),
      asOf: optional(isoTime("asOf").describe("ISO 8601: walk only facts true at that time")),
    }),
    execute({ entity, depth, asOf, wing }) {
      const walk = kg.neighbours(entity, depth ?? 1, defined({ asOf, wing }));
      return { ...walk, edges: walk.edges.map(factView) };
    },
  });
  return [
    reading(query),
    // Adding the same fact again changes nothing; an old fact `invalidate` ends stays in history.
    writing(add, { destructive: false, idempotent: true }),
    writing(invalidate, { destructive: true, idempotent: true }),
    reading(timeline),
    reading(stats),
    reading(traverse),
  ];
}
