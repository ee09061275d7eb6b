import {
  type CliGroup,
  type CliIo,
  choiceOption,
  defineCommand,
  integerOption,
  jsonText,
  UsageError,
} from "@atrium/kit/cli";
import { type KnowledgeGraph, renderFact, type Triple } from "../kg/index.js";
import { PALACE_OPTION, withPalace } from "./palace-option.js";

const COMMON = {
  json: { type: "boolean", help: "print the result as JSON" },
  ...PALACE_OPTION,
} as const;

function withGraph<T>(values: { palace?: string }, io: CliIo, body: (kg: KnowledgeGraph) => T): Promise<T> {
  return withPalace(values, io.env, {}, async (palace) => body(palace.kg));
}

/** Only the options given, under the names the graph takes. */
function picked(values: Record<string, unknown>, names: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [option, field] of Object.entries(names)) {
    const value = values[option];
    if (typeof value === "string") out[field] = value;
  }
  return out;
}

function printFacts(io: CliIo, json: boolean | undefined, facts: Triple[]): number {
  if (json) io.stdout.write(jsonText(facts));
  else
    io.stdout.write(
      facts.length === 0 ? "no facts\n" : facts.map((fact) => `${fact.id}  ${renderFact(fact)}\n`).join(""),
    );
  return 0;
}

const limitOption = { limit: { type: "string", value: "N", help: "at most N facts" } } as const;

const query = defineCommand({
  name: "query",
  summary: "facts matching every field given (with --as-of: true at time T)",
  usage: "[--subject S] [--predicate P] [--object O] [--as-of T] [--limit N] [--json]",
  options: {
    subject: { type: "string", value: "S", help: "facts about S" },
    predicate: { type: "string", value: "P", help: "facts with predicate P" },
    object: { type: "string", value: "O", help: "facts whose object is O" },
    "as-of": { type: "string", value: "T", help: "facts true at time T (ISO 8601)" },
    ...limitOption,
    ...COMMON,
  },
  async run({ values }, io) {
    const limit = integerOption(values.limit, "--limit", { min: 1 });
    const facts = await withGraph(values, io, (kg) =>
      kg.query({
        ...picked(values, { subject: "subject", predicate: "predicate", object: "object", "as-of": "asOf" }),
        ...(limit === undefined ? {} : { limit }),
      }),
    );
    return printFacts(io, values.json, facts);
  },
});

const add = defineCommand({
  name: "add",
  summary: "record a fact",
  usage:
    "<subject> <predicate> <object> [--from T] [--to T] [--source-drawer ID] [--confidence X] [--on-conflict C]",
  description:
    "Records a fact. One that contradicts an open fact of a single-valued predicate is reported\n(exit 1), unless --on-conflict says otherwise.",
  options: {
    from: { type: "string", value: "T", help: "true from T (ISO 8601)" },
    to: { type: "string", value: "T", help: "true until T" },
    "source-drawer": { type: "string", value: "ID", help: "the drawer the fact comes from" },
    confidence: { type: "string", value: "X", help: "how sure, from 0 to 1" },
    "on-conflict": {
      type: "string",
      value: "C",
      help: "report (default), invalidate the old fact, or keep-both",
    },
    ...COMMON,
  },
  positionals: { min: 3, max: 3, names: "<subject> <predicate> <object>" },
  async run({ values, positionals }, io) {
    const [subject, predicate, object] = positionals as [string, string, string];
    const confidenceText = values.confidence;
    const confidence = confidenceText === undefined ? undefined : Number(confidenceText);
    if (
      confidence !== undefined &&
      (confidenceText?.trim() === "" || !(confidence >= 0 && confidence <= 1))
    ) {
      throw new UsageError(
        `--confidence must be a number from 0 to 1, got ${JSON.stringify(confidenceText)}`,
      );
    }
    const onConflict = choiceOption(values["on-conflict"], "--on-conflict", [
      "report",
      "invalidate",
      "keep-both",
    ] as const);
    const result = await withGraph(values, io, (kg) =>
      kg.add(
        {
          subject,
          predicate,
          object,
          ...picked(values, { from: "validFrom", to: "validTo", "source-drawer": "sourceDrawerId" }),
          ...(confidence === undefined ? {} : { confidence }),
        },
        onConflict === undefined ? {} : { onConflict },
      ),
    );
    if (values.json) io.stdout.write(jsonText(result));
    else {
      if (result.triple) {
        io.stdout.write(
          `${result.created ? "added" : "already known"} ${result.triple.id}  ${renderFact(result.triple)}\n`,
        );
      }
      for (const conflict of result.conflicts) io.stderr.write(`conflict: ${conflict.message}\n`);
    }
    return result.triple === undefined ? 1 : 0;
  },
});

const invalidate = defineCommand({
  name: "invalidate",
  summary: "the fact stops being true at T (default now); nothing is deleted",
  usage: "(<fact-id> | <subject> <predicate> <object>) [--at T]",
  options: {
    at: { type: "string", value: "T", help: "when it stopped being true (default now)" },
    ...COMMON,
  },
  positionals: { min: 1, max: 3, names: "<fact-id> or <subject> <predicate> <object>" },
  async run({ values, positionals }, io) {
    if (positionals.length === 2) throw new UsageError("give <fact-id>, or <subject> <predicate> <object>");
    const [first, predicate, object] = positionals as [string, string?, string?];
    const target = predicate === undefined ? first : { subject: first, predicate, object: object as string };
    const ended = await withGraph(values, io, (kg) => kg.invalidate(target, picked(values, { at: "at" })));
    if (values.json) io.stdout.write(jsonText(ended));
    else io.stdout.write(ended.map((fact) => `ended ${fact.id}  ${renderFact(fact)}\n`).join(""));
    return 0;
  },
});

const timeline = defineCommand({
  name: "timeline",
  summary: "every fact about the entity, oldest first",
  usage: "<entity> [--limit N] [--json]",
  options: { ...limitOption, ...COMMON },
  positionals: { min: 1, max: 1, names: "the entity" },
  async run({ values, positionals }, io) {
    const limit = integerOption(values.limit, "--limit", { min: 1 });
    const facts = await withGraph(values, io, (kg) =>
      kg.timeline(positionals[0] as string, limit === undefined ? {} : { limit }),
    );
    return printFacts(io, values.json, facts);
  },
});

const stats = defineCommand({
  name: "stats",
  summary: "counts: entities, facts, predicates",
  usage: "[--json]",
  options: COMMON,
  async run({ values }, io) {
    const counts = await withGraph(values, io, (kg) => kg.stats());
    if (values.json) {
      io.stdout.write(jsonText(counts));
      return 0;
    }
    const lines = [
      `entities   ${counts.entities} (${counts.aliases} aliases)`,
      `facts      ${counts.triples} (${counts.openTriples} open, ${counts.endedTriples} ended)`,
      `predicates ${counts.predicates}${counts.singleValuedPredicates.length ? ` (single-valued: ${counts.singleValuedPredicates.join(", ")})` : ""}`,
      ...(counts.topPredicates.length
        ? [
            `most used  ${counts.topPredicates.map(({ predicate, count }) => `${predicate} ${count}`).join(", ")}`,
          ]
        : []),
    ];
    io.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  },
});

export const kgCommand: CliGroup = {
  name: "kg",
  summary: "the knowledge graph",
  description: 'The temporal knowledge graph: facts "subject predicate object" true from --from until --to.',
  commands: [query, add, invalidate, timeline, stats],
};
