import { schemaTool, type Tool } from "@atrium/spec";
import { z } from "zod";
import { DEFAULT_MEMORY_ROOM, DEFAULT_MEMORY_WING, MEMORY_HALL } from "../memory-store.js";
import type { PalaceView } from "../view/palace-view.js";
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

const name = (what: string, max: number) =>
  z
    .string({ error: `${what} must be text` })
    .trim()
    .min(1, { error: `${what} must not be empty` })
    .max(max, {
      error: `${what} is longer than ${max} characters`,
    });

/** `recall` (hybrid search) and `remember` (file a memory verbatim). */
export function memoryTools(palace: PalaceView, options: PalaceToolsOptions): Tool[] {
  const { limits } = palace;
  const recall = schemaTool({
    name: "recall",
    description:
      "Search long-term memory (verbatim past conversations, notes, files) by meaning and keywords. Returns the best matches, best first: [{ id, content, wing, room, speaker?, timestamp, score }].",
    inputSchema: z.strictObject({
      query: name("query", limits.maxQueryChars).describe("What to look for, in words"),
      k: z
        .number({ error: "k must be a number" })
        .int({ error: "k must be a whole number" })
        .min(1, { error: "k must be at least 1" })
        .max(limits.maxSearchHits, { error: `k is at most ${limits.maxSearchHits}` })
        .optional()
        .describe("How many memories to return (default 5)"),
      wing: name("wing", limits.maxNameChars).optional().describe("Only this wing (a person or project)"),
      room: name("room", limits.maxNameChars).optional().describe("Only this room (a topic)"),
    }),
    async execute({ query, k, wing, room }): Promise<RecallToolHit[]> {
      const scopeWing = toolWing(options, wing);
      const hits = await palace.search(query, {
        k: k ?? 5,
        ...(scopeWing === undefined ? {} : { wing: scopeWing }),
        ...(room === undefined ? {} : { room }),
      });
      return hits.map((hit) => ({
        id: hit.id,
        content: hit.content,
        wing: hit.wing,
        room: hit.room,
        ...(hit.speaker === undefined ? {} : { speaker: hit.speaker }),
        timestamp: hit.timestamp,
        score: hit.score,
      }));
    },
  });
  const remember = schemaTool({
    name: "remember",
    description:
      "Store a memory verbatim for later recall (a fact about the user, a decision, something to keep). Returns { id, created }; created is false when the same memory was already stored.",
    inputSchema: z.strictObject({
      content: z
        .string({ error: "content must be text" })
        .refine((text) => text.trim() !== "", { error: "content must not be empty" })
        .refine((text) => text.length <= limits.maxDrawerChars, {
          error: `content is longer than ${limits.maxDrawerChars} characters; split it`,
        })
        .describe("The memory, exactly as it should be recalled"),
      room: name("room", limits.maxNameChars).optional().describe("A topic to file it under"),
      wing: name("wing", limits.maxNameChars).optional().describe("A person or project to file it under"),
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
  return [recall, remember];
}
