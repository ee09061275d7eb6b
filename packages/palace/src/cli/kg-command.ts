import { type KnowledgeGraph, renderFact, type Triple } from "../kg/index.js";
import {
  type CliCommand,
  type CliIo,
  choiceOption,
  integerOption,
  jsonLine,
  type ParsedArgs,
  parseCommandArgs,
  printHelp,
  stringOption,
  UsageError,
} from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace kg <query|add|invalidate|timeline|stats> ...

The temporal knowledge graph: facts "subject predicate object" true from --from until --to.

  kg query [--subject S] [--predicate P] [--object O] [--as-of T] [--limit N]
                        facts matching every field given (with --as-of: true at time T)
  kg add <subject> <predicate> <object> [--from T] [--to T] [--source-drawer ID]
         [--confidence X] [--on-conflict report|invalidate|keep-both]
                        record a fact; one contradicting an open fact of a single-valued
                        predicate is reported (exit 1), unless --on-conflict says otherwise
  kg invalidate (<fact-id> | <subject> <predicate> <object>) [--at T]
                        the fact stops being true at T (default now); nothing is deleted
  kg timeline <entity> [--limit N]
                        every fact about the entity, oldest first
  kg stats              counts: entities, facts, predicates

  --json                print the result as JSON (every subcommand)
${PALACE_OPTION_HELP}
  -h, --help            show this help
`;

const COMMON = { ...PALACE_OPTION, json: { type: "boolean" } } as const;

export const kgCommand: CliCommand = {
  name: "kg",
  synopsis: "kg query|add|invalidate|timeline|stats",
  summary: "the knowledge graph",
  usage: USAGE,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    switch (sub) {
      case "query":
        return query(rest, io);
      case "add":
        return add(rest, io);
      case "invalidate":
        return invalidate(rest, io);
      case "timeline":
        return timeline(rest, io);
      case "stats":
        return stats(rest, io);
      case undefined:
      case "-h":
      case "--help":
        if (sub === undefined)
          throw new UsageError("missing subcommand: query, add, invalidate, timeline or stats");
        return printHelp(io, USAGE);
      default:
        throw new UsageError(`unknown subcommand '${sub}': use query, add, invalidate, timeline or stats`);
    }
  },
};

function withGraph<T>(args: ParsedArgs, io: CliIo, body: (kg: KnowledgeGraph) => T): Promise<T> {
  return withPalace(args.values, io.env, {}, async (palace) => body(palace.kg));
}

/** Only the options given, under the names the graph takes. */
function picked(args: ParsedArgs, names: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [option, field] of Object.entries(names)) {
    const value = stringOption(args.values, option);
    if (value !== undefined) out[field] = value;
  }
  return out;
}

function printFacts(io: CliIo, args: ParsedArgs, facts: Triple[], empty: string): number {
  if (args.values.json) io.stdout.write(jsonLine(facts));
  else
    io.stdout.write(
      facts.length === 0 ? `${empty}\n` : facts.map((fact) => `${fact.id}  ${renderFact(fact)}\n`).join(""),
    );
  return 0;
}

async function query(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(
    argv,
    {
      ...COMMON,
      subject: { type: "string" },
      predicate: { type: "string" },
      object: { type: "string" },
      "as-of": { type: "string" },
      limit: { type: "string" },
    },
    { min: 0, max: 0, names: "" },
  );
  if (!args) return printHelp(io, USAGE);
  const limit = integerOption(args.values, "limit", 1, Number.MAX_SAFE_INTEGER);
  const facts = await withGraph(args, io, (kg) =>
    kg.query({
      ...picked(args, { subject: "subject", predicate: "predicate", object: "object", "as-of": "asOf" }),
      ...(limit === undefined ? {} : { limit }),
    }),
  );
  return printFacts(io, args, facts, "no facts");
}

async function add(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(
    argv,
    {
      ...COMMON,
      from: { type: "string" },
      to: { type: "string" },
      "source-drawer": { type: "string" },
      confidence: { type: "string" },
      "on-conflict": { type: "string" },
    },
    { min: 3, max: 3, names: "<subject> <predicate> <object>" },
  );
  if (!args) return printHelp(io, USAGE);
  const [subject, predicate, object] = args.positionals as [string, string, string];
  const confidenceText = stringOption(args.values, "confidence");
  const confidence = confidenceText === undefined ? undefined : Number(confidenceText);
  if (confidence !== undefined && (confidenceText?.trim() === "" || !(confidence >= 0 && confidence <= 1))) {
    throw new UsageError(`--confidence must be a number from 0 to 1, got ${JSON.stringify(confidenceText)}`);
  }
  const onConflict = choiceOption(args.values, "on-conflict", ["report", "invalidate", "keep-both"] as const);
  const result = await withGraph(args, io, (kg) =>
    kg.add(
      {
        subject,
        predicate,
        object,
        ...picked(args, { from: "validFrom", to: "validTo", "source-drawer": "sourceDrawerId" }),
        ...(confidence === undefined ? {} : { confidence }),
      },
      onConflict === undefined ? {} : { onConflict },
    ),
  );
  if (args.values.json) io.stdout.write(jsonLine(result));
  else {
    if (result.triple) {
      io.stdout.write(
        `${result.created ? "added" : "already known"} ${result.triple.id}  ${renderFact(result.triple)}\n`,
      );
    }
    for (const conflict of result.conflicts) io.stderr.write(`conflict: ${conflict.message}\n`);
  }
  return result.triple === undefined ? 1 : 0;
}

async function invalidate(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(
    argv,
    { ...COMMON, at: { type: "string" } },
    {
      min: 1,
      max: 3,
      names: "<fact-id> or <subject> <predicate> <object>",
    },
  );
  if (!args) return printHelp(io, USAGE);
  const { positionals } = args;
  if (positionals.length === 2) throw new UsageError("give <fact-id>, or <subject> <predicate> <object>");
  const [first, predicate, object] = positionals as [string, string?, string?];
  const target = predicate === undefined ? first : { subject: first, predicate, object: object as string };
  const ended = await withGraph(args, io, (kg) => kg.invalidate(target, picked(args, { at: "at" })));
  if (args.values.json) io.stdout.write(jsonLine(ended));
  else io.stdout.write(ended.map((fact) => `ended ${fact.id}  ${renderFact(fact)}\n`).join(""));
  return 0;
}

async function timeline(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(
    argv,
    { ...COMMON, limit: { type: "string" } },
    {
      min: 1,
      max: 1,
      names: "the entity",
    },
  );
  if (!args) return printHelp(io, USAGE);
  const limit = integerOption(args.values, "limit", 1, Number.MAX_SAFE_INTEGER);
  const facts = await withGraph(args, io, (kg) =>
    kg.timeline(args.positionals[0] as string, limit === undefined ? {} : { limit }),
  );
  return printFacts(io, args, facts, "no facts");
}

async function stats(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(argv, COMMON, { min: 0, max: 0, names: "" });
  if (!args) return printHelp(io, USAGE);
  const counts = await withGraph(args, io, (kg) => kg.stats());
  if (args.values.json) {
    io.stdout.write(jsonLine(counts));
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
}
