import { schemaTool } from "@atrium/kit";
import { z } from "zod";
import { diaryRead, diaryWrite } from "../diary/index.js";
import type { PalaceView } from "../view/palace-view.js";
import { type PalaceTool, reading, writing } from "./tool-annotations.js";
import { defined, isoTime, optional, text, wholeNumber } from "./tool-fields.js";
import { type PalaceToolsOptions, toolAgent } from "./tool-options.js";

const agentField = optional(
  text("the agent's name").describe('Whose diary: your own name, e.g. claude (default "agent")'),
);

const wingField = optional(
  text("a wing name").describe("The wing the diary is kept in (default: your own wing)"),
);

/**
 * diary_write and diary_read: each agent's own diary (hall diary), kept in the caller's wing (for
 * the palace's owner, wing diary:<agent>).
 */
export function diaryTools(palace: PalaceView, options: PalaceToolsOptions): PalaceTool[] {
  const write = schemaTool({
    name: "diary_write",
    description:
      "Write an entry in an agent's diary: what it did, learned or decided, optionally under a topic (else filed under the day). Returns { id, created, room, timestamp }.",
    inputSchema: z.strictObject({
      agent: agentField,
      entry: text("the entry's text", palace.limits.maxDrawerChars).describe("The entry, verbatim"),
      topic: optional(text("a topic").describe("File it under this topic instead of the day")),
      timestamp: optional(isoTime("timestamp").describe("When (ISO 8601); default now")),
      wing: wingField,
    }),
    execute: ({ agent, entry, topic, timestamp, wing }) =>
      diaryWrite(palace, toolAgent(options, agent), entry, defined({ topic, timestamp, wing })),
  });
  const read = schemaTool({
    name: "diary_read",
    description:
      "Read an agent's diary, newest first, optionally since a time or under one topic: { agent, entries: [{ id, wing, entry, topic?, room, timestamp }] }.",
    inputSchema: z.strictObject({
      agent: agentField,
      last: optional(
        wholeNumber("last", 1, palace.limits.maxListDrawers).describe("How many entries (default 10)"),
      ),
      since: optional(isoTime("since").describe("Only entries at or after this ISO 8601 time")),
      topic: optional(text("a topic").describe("Only entries under this topic")),
      wing: wingField,
    }),
    async execute({ agent: asked, last, since, topic, wing }) {
      const agent = toolAgent(options, asked);
      const entries = await diaryRead(palace, agent, defined({ last, since, topic, wing }));
      return { agent, entries: entries.map(({ agent: _agent, ...entry }) => entry) };
    },
  });
  // An entry's time is part of its id: a repeat a moment later is another entry.
  return [writing(write, { destructive: false, idempotent: false }), reading(read)];
}
