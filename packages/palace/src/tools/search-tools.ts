import { schemaTool } from "@atrium/kit";
import { z } from "zod";
import { SEARCH_DEFAULT_K } from "../tuning.js";
import type { PalaceView } from "../view/palace-view.js";
import { type PalaceTool, reading } from "./tool-annotations.js";
import { defined, filterFields, optional, text, timeRange, wholeNumber } from "./tool-fields.js";

/** search and check_duplicate. */
export function searchTools(palace: PalaceView): PalaceTool[] {
  const { maxSearchHits, maxNeighbours } = palace.limits;
  return [
    schemaTool({
      name: "search",
      description:
        "Find drawers by meaning and keywords (hybrid BM25 + vector search), optionally inside a wing, room, hall or time range. Returns the verbatim text of each hit with its id, score and metadata, best first.",
      inputSchema: z.strictObject({
        query: text("what to look for, in words").describe("What to look for, in words"),
        ...filterFields,
        k: optional(
          wholeNumber("k", 1, maxSearchHits).describe(`Hits to return (default ${SEARCH_DEFAULT_K})`),
        ),
        mode: optional(
          z
            .enum(["hybrid", "bm25", "vector"], { error: "must be hybrid, bm25 or vector" })
            .describe("hybrid (default) fuses keyword and vector ranks; bm25 or vector runs one alone"),
        ),
        neighbours: optional(
          wholeNumber("neighbours", 0, maxNeighbours).describe(
            "Also return this many drawers before and after each hit in its source (its context)",
          ),
        ),
      }),
      async execute({ query, wing, room, hall, from, to, k, mode, neighbours }) {
        const hits = await palace.search(query, {
          ...defined({ wing, room, hall, k, mode }),
          ...timeRange(from, to),
          ...(neighbours ? { expandNeighbours: neighbours } : {}),
        });
        return { hits };
      },
    }),
    schemaTool({
      name: "check_duplicate",
      description:
        "Before filing text, check whether the palace already holds it: the same text anywhere (exact), or drawers at least `threshold` similar (cosine, default 0.9).",
      inputSchema: z.strictObject({
        content: text("the text to check").describe("The text you are about to file"),
        threshold: optional(
          z
            .number({ error: "must be a number from 0 to 1 (threshold)" })
            .min(0, { error: "must be a number from 0 to 1 (threshold)" })
            .max(1, { error: "must be a number from 0 to 1 (threshold)" })
            .describe("Similarity from 0 to 1 at which a drawer counts as a near duplicate"),
        ),
        wing: optional(text("a wing name").describe("Only look inside this wing")),
      }),
      async execute({ content, threshold, wing }) {
        const check = await palace.checkDuplicate(content, defined({ threshold, wing }));
        return {
          isDuplicate: check.isDuplicate,
          matches: check.matches.map(({ drawer, similarity, exact }) => ({
            id: drawer.id,
            wing: drawer.wing,
            room: drawer.room,
            similarity,
            exact,
            content: drawer.content,
          })),
        };
      },
    }),
  ].map(reading);
}
