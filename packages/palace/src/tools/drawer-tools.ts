import { schemaTool } from "@atrium/kit";
import { z } from "zod";
import { PalaceError } from "../errors.js";
import type { PalaceView } from "../view/palace-view.js";
import { type PalaceTool, reading, writing } from "./tool-annotations.js";
import {
  defined,
  filterFields,
  isoTime,
  metadataField,
  optional,
  text,
  timeRange,
  wholeNumber,
} from "./tool-fields.js";

const drawerIdField = text("a drawer id").describe("The drawer's id, as search or list_drawers returned it");

/** add_drawer, get_drawer, list_drawers, update_drawer, delete_drawer. */
export function drawerTools(palace: PalaceView): PalaceTool[] {
  return [
    writing(
      schemaTool({
        name: "add_drawer",
        description:
          "File a verbatim memory (never summarise it) in a wing (person or project) and a room (topic). The id comes from the wing and text: filing the same text in the same wing again changes nothing and answers created: false.",
        inputSchema: z.strictObject({
          content: text("the text to file").describe("The memory, verbatim"),
          wing: text("a wing name").describe("A person or project, e.g. alice or atrium"),
          room: text("a room name").describe("A topic, e.g. billing or travel"),
          hall: optional(
            text("a hall name").describe("A kind of memory, e.g. notes (default: the palace's)"),
          ),
          speaker: optional(text("who said it").describe("Who said or wrote it")),
          source: optional(
            text("where it came from").describe("Where it came from (a file, a conversation id)"),
          ),
          timestamp: optional(isoTime("timestamp").describe("When it happened (ISO 8601); default now")),
          metadata: optional(metadataField.describe("Extra string, number or boolean fields")),
          pinned: optional(
            z.boolean({ error: "must be true or false (pinned)" }).describe("Always offer it in the wake-up"),
          ),
        }),
        async execute({ pinned, ...draft }) {
          const [filed] = await palace.file([defined(draft) as typeof draft]);
          const result = filed as { id: string; created: boolean };
          if (pinned !== undefined) await palace.update(result.id, { pinned });
          return result;
        },
      }),
      { destructive: false, idempotent: true },
    ),
    reading(
      schemaTool({
        name: "get_drawer",
        description: "One drawer by id: its verbatim text and every field.",
        inputSchema: z.strictObject({ id: drawerIdField }),
        async execute({ id }) {
          const drawer = await palace.get(id);
          if (!drawer) throw notFound(id);
          return { drawer };
        },
      }),
    ),
    reading(
      schemaTool({
        name: "list_drawers",
        description:
          "Drawers in filing order, filtered by wing, room, hall, time, source or pin, a page at a time; pass nextCursor back as cursor for the next page.",
        inputSchema: z.strictObject({
          ...filterFields,
          source: optional(text("a source").describe("Only drawers mined from this source")),
          pinned: optional(
            z
              .boolean({ error: "must be true or false (pinned)" })
              .describe("Only pinned (or unpinned) drawers"),
          ),
          limit: optional(
            wholeNumber("limit", 1, palace.limits.maxListDrawers).describe("Drawers per page (default 100)"),
          ),
          cursor: optional(
            text("the nextCursor of a previous page").describe("nextCursor of the previous page"),
          ),
        }),
        async execute({ from, to, ...rest }) {
          return palace.list({ ...defined(rest), ...timeRange(from, to) });
        },
      }),
    ),
    writing(
      schemaTool({
        name: "update_drawer",
        description:
          "Change a drawer in place: move it to another room or hall, pin it, fix its speaker, time or metadata. Its text and wing cannot change (they make the id): delete it and add the new text instead.",
        inputSchema: z.strictObject({
          id: drawerIdField,
          room: optional(text("a room name")),
          hall: optional(text("a hall name")),
          speaker: optional(text("who said it")),
          timestamp: optional(isoTime("timestamp")),
          metadata: optional(metadataField.describe("Replaces the drawer's metadata")),
          pinned: optional(z.boolean({ error: "must be true or false (pinned)" })),
        }),
        async execute({ id, ...changes }) {
          const patch = defined(changes);
          if (Object.keys(patch).length === 0) {
            throw new PalaceError(
              "palace/invalid-input",
              "update_drawer: give at least one of room, hall, speaker, timestamp, metadata, pinned to change",
            );
          }
          return { drawer: await palace.update(id, patch) };
        },
      }),
      { destructive: true, idempotent: true },
    ),
    writing(
      schemaTool({
        name: "delete_drawer",
        description: "Remove a drawer for good (its text and its vector).",
        inputSchema: z.strictObject({ id: drawerIdField }),
        async execute({ id }) {
          if (!(await palace.delete(id))) throw notFound(id);
          return { id, deleted: true };
        },
      }),
      { destructive: true, idempotent: true },
    ),
  ];
}

function notFound(id: string): PalaceError {
  return new PalaceError("palace/not-found", `No drawer has id ${id}; find ids with search or list_drawers`);
}
