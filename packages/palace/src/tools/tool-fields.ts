import { z } from "zod";

/**
 * The zod pieces every palace tool builds its input from. Messages name the field and say what
 * to send; the MCP server and an agent's tool call both prefix each with the field's path.
 */

/**
 * An optional field. Not nullable: its JSON Schema keeps a plain `type` (no `anyOf` with null),
 * which clients that build arguments from the schema need (the MCP Inspector turns `k=3` into a
 * number only for a property whose `type` is number or integer).
 */
export function optional<Schema extends z.ZodType>(schema: Schema) {
  return schema.optional();
}

/** Non-empty text (a wing, room, hall, id, query), at most `maxChars` characters when given. */
export function text(what: string, maxChars?: number) {
  const nonEmpty = z
    .string({ error: `must be text (${what})` })
    .refine((value) => value.trim() !== "", { error: `is empty; give ${what}` });
  return maxChars === undefined
    ? nonEmpty
    : nonEmpty.max(maxChars, { error: `must be at most ${maxChars} characters (${what})` });
}

export function wholeNumber(what: string, min: number, max: number) {
  return z
    .number({ error: `must be a number (${what})` })
    .int({ error: `must be a whole number (${what})` })
    .min(min, { error: `must be at least ${min} (${what})` })
    .max(max, { error: `must be at most ${max} (${what})` });
}

/** An ISO 8601 time; the palace (or the knowledge graph) checks it and names the field when it is not. */
export function isoTime(what: string) {
  return z.string({ error: `must be an ISO 8601 time string (${what})` });
}

/** Drawer metadata: scalar values only (Chroma stores no arrays or objects). */
export const metadataField = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean()], {
    error: "each metadata value must be a string, number or boolean",
  }),
  { error: "must be an object of string, number or boolean values" },
);

/** The drawer filter every search and listing takes. */
export const filterFields = {
  wing: optional(text("a wing name").describe("Only drawers in this wing (a person or project)")),
  room: optional(text("a room name").describe("Only drawers in this room (a topic)")),
  hall: optional(text("a hall name").describe("Only drawers in this hall (e.g. conversations, code, diary)")),
  from: optional(isoTime("from").describe("Only drawers whose time is at or after this ISO 8601 time")),
  to: optional(isoTime("to").describe("Only drawers whose time is at or before this ISO 8601 time")),
};

/** `{ from, to }` as the palace's `timeRange`, absent when neither bound is given. */
export function timeRange(from: string | undefined, to: string | undefined) {
  if (from === undefined && to === undefined) return {};
  return {
    timeRange: { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) },
  };
}

/** Leaves out the keys whose value is undefined (palace options treat a present undefined as given). */
export function defined<T extends Record<string, unknown>>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>;
}
