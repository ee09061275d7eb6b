import { schemaTool } from "@atrium/kit";
import { z } from "zod";
import { DEFAULT_MEMORY_ROOM, DEFAULT_MEMORY_WING, MEMORY_HALL } from "../memory-store.js";
import type { PalaceView } from "../view/palace-view.js";
import { type PalaceTool, reading, writing } from "./tool-annotations.js";
import { defined, optional, text, wholeNumber } from "./tool-fields.js";
import { type PalaceToolsOptions, toolWing } from "./tool-options.js";

/** One recalled memory, as the model sees it. */
export interface RecallToolHit {
  id: string;
  content: string;
  wing: string;
  room: string;
  speaker?: string;
  timestamp: string;
  score: number;
}

/** Memories `recall` returns when not told how many. */
const RECALL_DEFAULT_K = 5;

/**
 * recall (hybrid search, the short form) and remember (file a memory verbatim, wing and room
 * defaulted): long-term memory in two calls.
 */
export function memoryTools(palace: PalaceView, options: PalaceToolsOptions): PalaceTool[] {
  const { limits } = palace;
  const recall = schemaTool({
    name: "recall",
    description:
      "Search long-term memory (verbatim past conversations, notes, files) by meaning and keywords. Returns { hits: [{ id, content, wing, room, speaker?, timestamp, score }] }, best first.",
    inputSchema: z.strictObject({
      query: text("what to look for, in words", limits.maxQueryChars).describe("What to look for, in words"),
      k: optional(
        wholeNumber("k", 1, limits.maxSearchHits).describe(
          `How many memories to return (default ${RECALL_DEFAULT_K})`,
        ),
      ),
      wing: optional(
        text("a wing name", limits.maxNameChars).describe("Only this wing (a person or project)"),
      ),
      room: optional(text("a room name", limits.maxNameChars).describe("Only this room (a topic)")),
    }),
    async execute({ query, k, wing, room }): Promise<{ hits: RecallToolHit[] }> {
      const hits = await palace.search(query, {
        k: k ?? RECALL_DEFAULT_K,
        ...defined({ wing: toolWing(options, wing), room }),
      });
      return {
        hits: hits.map((hit) => ({
          id: hit.id,
          content: hit.content,
          wing: hit.wing,
          room: hit.room,
          ...defined({ speaker: hit.speaker }),
          timestamp: hit.timestamp,
          score: hit.score,
        })),
      };
    },
  });
  const remember = schemaTool({
    name: "remember",
    description:
      "Store a memory verbatim for later recall (a fact about the user, a decision, something to keep). Returns { id, created }; created is false when the same memory was already stored.",
    inputSchema: z.strictObject({
      content: text("the memory", limits.maxDrawerChars).describe(
        "The memory, exactly as it should be recalled",
      ),
      room: optional(text("a room name", limits.maxNameChars).describe("A topic to file it under")),
      wing: optional(
        text("a wing name", limits.maxNameChars).describe("A person or project to file it under"),
      ),
    }),
    async execute({ content, room, wing }) {
      const [result] = await palace.file([
        {
          content,
          wing: toolWing(options, wing) ?? palace.homeWing ?? DEFAULT_MEMORY_WING,
          room: room ?? options.room ?? DEFAULT_MEMORY_ROOM,
          hall: MEMORY_HALL,
          source: options.source ?? "agent",
        },
      ]);
      return result as { id: string; created: boolean };
    },
  });
  return [reading(recall), writing(remember, { destructive: false, idempotent: true })];
}
