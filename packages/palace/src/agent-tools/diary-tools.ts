import { schemaTool, type Tool } from "@atrium/spec";
import { z } from "zod";
import { diaryRead, diaryWrite } from "../diary/diary.js";
import type { PalaceView } from "../view/palace-view.js";
import type { PalaceToolsOptions } from "./tool-options.js";

/** `diary_write` and `diary_read`: the agent's own diary, kept in the palace. */
export function diaryTools(palace: PalaceView, options: PalaceToolsOptions): Tool[] {
  const agent = options.agent ?? "agent";
  const write = schemaTool({
    name: "diary_write",
    description:
      "Write an entry in your own diary (what you did, learned or decided), optionally under a topic. Returns { id, created, room, timestamp }.",
    inputSchema: z.strictObject({
      entry: z
        .string({ error: "entry must be text" })
        .refine((text) => text.trim() !== "", { error: "entry must not be empty" })
        .refine((text) => text.length <= palace.limits.maxDrawerChars, {
          error: `entry is longer than ${palace.limits.maxDrawerChars} characters`,
        }),
      topic: z.string().trim().min(1, { error: "topic must not be empty" }).optional(),
    }),
    execute: ({ entry, topic }) => diaryWrite(palace, agent, entry, topic === undefined ? {} : { topic }),
  });
  const read = schemaTool({
    name: "diary_read",
    description:
      "Read your diary, newest first: [{ id, entry, topic?, room, timestamp }]. last: how many (default 10); since: ISO 8601 time; topic: one topic only.",
    inputSchema: z.strictObject({
      last: z
        .number({ error: "last must be a number" })
        .int({ error: "last must be a whole number" })
        .min(1, { error: "last must be at least 1" })
        .max(palace.limits.maxListDrawers, { error: `last is at most ${palace.limits.maxListDrawers}` })
        .optional(),
      since: z.string().trim().min(1, { error: "since must not be empty" }).optional(),
      topic: z.string().trim().min(1, { error: "topic must not be empty" }).optional(),
    }),
    async execute({ last, since, topic }) {
      const entries = await diaryRead(palace, agent, {
        ...(last === undefined ? {} : { last }),
        ...(since === undefined ? {} : { since }),
        ...(topic === undefined ? {} : { topic }),
      });
      return entries.map(({ agent: _agent, ...entry }) => entry);
    },
  });
  return [write, read];
}
