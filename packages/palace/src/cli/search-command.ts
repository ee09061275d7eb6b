import type { SearchHit } from "../search/hybrid-search.js";
import {
  type CliCommand,
  choiceOption,
  integerOption,
  jsonLine,
  parseCommandArgs,
  printHelp,
  stringOption,
} from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace search <query> [--wing W] [--room R] [--hall H] [--from T] [--to T] [-k N] [--mode M] [--json]

Finds drawers by meaning and keywords and prints each hit's verbatim text, best first.

  --wing, --room, --hall  search only there
  --from T, --to T        only drawers whose time is in [T, T] (ISO 8601, e.g. 2023-05-08)
  -k N                    hits to print (default 10)
  --mode M                hybrid (default: BM25 and vectors fused), bm25, or vector
  --neighbours N          also print N drawers before and after each hit in its source
  --json                  print the hits as JSON: ids, scores, ranks, text and metadata
${PALACE_OPTION_HELP}
  -h, --help              show this help
`;

export const searchCommand: CliCommand = {
  name: "search",
  synopsis: "search <query> [--wing W] [-k N] [--json]",
  summary: "find drawers, verbatim",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      {
        ...PALACE_OPTION,
        wing: { type: "string" },
        room: { type: "string" },
        hall: { type: "string" },
        from: { type: "string" },
        to: { type: "string" },
        k: { type: "string", short: "k" },
        mode: { type: "string" },
        neighbours: { type: "string" },
        json: { type: "boolean" },
      },
      { min: 1, max: 1, names: "the query" },
    );
    if (!args) return printHelp(io, USAGE);
    const { values } = args;
    const from = stringOption(values, "from");
    const to = stringOption(values, "to");
    const k = integerOption(values, "k", 1, Number.MAX_SAFE_INTEGER);
    const neighbours = integerOption(values, "neighbours", 0, Number.MAX_SAFE_INTEGER);
    const mode = choiceOption(values, "mode", ["hybrid", "bm25", "vector"] as const);
    const hits = await withPalace(values, io.env, {}, (palace) =>
      palace.search(args.positionals[0] as string, {
        ...Object.fromEntries(
          (["wing", "room", "hall"] as const).flatMap((key) => {
            const value = stringOption(values, key);
            return value === undefined ? [] : [[key, value]];
          }),
        ),
        ...(from === undefined && to === undefined
          ? {}
          : { timeRange: { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) } }),
        ...(k === undefined ? {} : { k }),
        ...(mode === undefined ? {} : { mode }),
        ...(neighbours ? { expandNeighbours: neighbours } : {}),
      }),
    );
    io.stdout.write(values.json ? jsonLine(hits) : formatHits(hits));
    return 0;
  },
};

/**
 * Each hit as a header line (rank, id, where it is filed, its time, speaker and score) and its
 * verbatim text, with neighbours marked; "no matches" when there are none.
 */
export function formatHits(hits: readonly SearchHit[]): string {
  if (hits.length === 0) return "no matches\n";
  return hits
    .map((hit, at) => {
      const by = hit.speaker ? `  by ${hit.speaker}` : "";
      const header = `#${at + 1} ${hit.id}  ${hit.wing}/${hit.room}  ${hit.timestamp}${by}  score ${hit.score.toFixed(4)}`;
      const before = (hit.neighbours?.before ?? []).map((drawer) => `(before) ${drawer.content}`);
      const after = (hit.neighbours?.after ?? []).map((drawer) => `(after) ${drawer.content}`);
      return [header, ...before, hit.content, ...after].join("\n");
    })
    .join("\n\n")
    .concat("\n");
}
