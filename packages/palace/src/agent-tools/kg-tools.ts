import { schemaTool, type Tool } from "@atrium/spec";
import { z } from "zod";
import { renderFact } from "../kg/kg-fact-lines.js";
import type { Triple } from "../kg/kg-types.js";
import type { PalaceView } from "../view/palace-view.js";

/** A fact as the model sees it: the stored fields and one readable line. */
export interface FactView {
  id: string;
  subject: string;
  predicate: string;
  object: string;
  valid_from?: string;
  valid_to?: string;
  text: string;
}

function view(triple: Triple): FactView {
  return {
    id: triple.id,
    subject: triple.subject,
    predicate: triple.predicate,
    object: triple.object,
    ...(triple.validFrom === undefined ? {} : { valid_from: triple.validFrom }),
    ...(triple.validTo === undefined ? {} : { valid_to: triple.validTo }),
    text: renderFact(triple),
  };
}

const text = (what: string) =>
  z
    .string({ error: `${what} must be text` })
    .trim()
    .min(1, { error: `${what} must not be empty` });

/** `kg_query` and `kg_add` over the palace's knowledge graph. */
export function knowledgeGraphTools(palace: PalaceView): Tool[] {
  const query = schemaTool({
    name: "kg_query",
    description:
      "Look up facts in the knowledge graph (subject — predicate → object, each true over a time span). Give any of subject, predicate, object; as_of keeps only facts true at that time. Returns [{ id, subject, predicate, object, valid_from?, valid_to?, text }].",
    inputSchema: z.strictObject({
      subject: text("subject").optional().describe("An entity name or alias"),
      predicate: text("predicate").optional().describe('A relation, e.g. "lives_in"'),
      object: text("object").optional().describe("An entity name or alias"),
      as_of: text("as_of").optional().describe("ISO 8601 date: only facts true then"),
      limit: z.number().int().min(1).optional().describe("At most this many facts"),
    }),
    execute({ subject, predicate, object, as_of, limit }): FactView[] {
      return palace.kg
        .query({
          ...(subject === undefined ? {} : { subject }),
          ...(predicate === undefined ? {} : { predicate }),
          ...(object === undefined ? {} : { object }),
          ...(as_of === undefined ? {} : { asOf: as_of }),
          ...(limit === undefined ? {} : { limit }),
        })
        .map(view);
    },
  });
  const add = schemaTool({
    name: "kg_add",
    description:
      'Add a fact to the knowledge graph, e.g. { subject: "Caroline", predicate: "lives_in", object: "Boston", valid_from: "2023-05" }. A fact contradicting a current one of a single-valued predicate is not stored unless on_conflict says so; the result says what happened: { stored, fact?, conflicts, observation }.',
    inputSchema: z.strictObject({
      subject: text("subject"),
      predicate: text("predicate"),
      object: text("object"),
      valid_from: text("valid_from").optional().describe("ISO 8601: since when it is true"),
      valid_to: text("valid_to").optional().describe("ISO 8601: when it stopped being true"),
      source_drawer_id: text("source_drawer_id").optional().describe("The memory id the fact comes from"),
      on_conflict: z
        .enum(["report", "invalidate", "keep-both"], {
          error: 'on_conflict must be "report", "invalidate" or "keep-both"',
        })
        .optional()
        .describe(
          '"report" (default): store nothing and say so; "invalidate": end the old fact; "keep-both"',
        ),
    }),
    execute(input) {
      const result = palace.kg.add(
        {
          subject: input.subject,
          predicate: input.predicate,
          object: input.object,
          ...(input.valid_from === undefined ? {} : { validFrom: input.valid_from }),
          ...(input.valid_to === undefined ? {} : { validTo: input.valid_to }),
          ...(input.source_drawer_id === undefined ? {} : { sourceDrawerId: input.source_drawer_id }),
        },
        input.on_conflict === undefined ? {} : { onConflict: input.on_conflict },
      );
      const stored = result.created && result.triple !== undefined;
      const lines = [
        stored
          ? `Stored: ${renderFact(result.triple as Triple)}.`
          : result.triple
            ? `Already known: ${renderFact(result.triple)}.`
            : "Not stored.",
        ...result.conflicts.map((conflict) => conflict.message),
      ];
      return {
        stored,
        ...(result.triple === undefined ? {} : { fact: view(result.triple) }),
        conflicts: result.conflicts.map((conflict) => ({
          existing: view(conflict.existing),
          resolution: conflict.resolution,
        })),
        observation: lines.join(" "),
      };
    },
  });
  return [query, add];
}
