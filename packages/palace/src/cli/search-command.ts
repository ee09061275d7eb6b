import { choiceOption, defineCommand, integerOption, jsonText } from "@atrium/kit/cli";
import type { SearchHit } from "../search/hybrid-search.js";
import { PALACE_OPTION, withPalace } from "./palace-option.js";

export const searchCommand = defineCommand({
  name: "search",
  summary: "find drawers, verbatim",
  usage: "<query> [--wing W] [--room R] [--hall H] [--from T] [--to T] [-k N] [--mode M] [--json]",
  description: "Finds drawers by meaning and keywords and prints each hit's verbatim text, best first.",
  arguments: [["<query>", "what to look for"]],
  options: {
    wing: { type: "string", value: "W", help: "search only this wing" },
    room: { type: "string", value: "R", help: "search only this room" },
    hall: { type: "string", value: "H", help: "search only this hall" },
    from: {
      type: "string",
      value: "T",
      help: "only drawers whose time is T or later (ISO 8601, e.g. 2023-05-08)",
    },
    to: { type: "string", value: "T", help: "only drawers whose time is T or earlier" },
    k: { type: "string", short: "k", label: "-k N", help: "hits to print (default 10)" },
    mode: { type: "string", value: "M", help: "hybrid (default: BM25 and vectors fused), bm25, or vector" },
    neighbours: {
      type: "string",
      value: "N",
      help: "also print N drawers before and after each hit in its source",
    },
    json: { type: "boolean", help: "print the hits as JSON: ids, scores, ranks, text and metadata" },
    ...PALACE_OPTION,
  },
  positionals: { min: 1, max: 1, names: "the query" },
  async run({ values, positionals }, io) {
    const { from, to } = values;
    const k = integerOption(values.k, "-k", { min: 1 });
    const neighbours = integerOption(values.neighbours, "--neighbours");
    const mode = choiceOption(values.mode, "--mode", ["hybrid", "bm25", "vector"] as const);
    const hits = await withPalace(values, io.env, {}, (palace) =>
      palace.search(positionals[0] as string, {
        ...Object.fromEntries(
          (["wing", "room", "hall"] as const).flatMap((key) => {
            const value = values[key];
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
    io.stdout.write(values.json ? jsonText(hits) : formatHits(hits));
    return 0;
  },
});

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
