import { schemaTool } from "@atrium/kit";
import { z } from "zod";
import type { PalaceView } from "../view/palace-view.js";
import { type PalaceTool, reading } from "./tool-annotations.js";
import { optional, text } from "./tool-fields.js";

/** status, list_wings, list_rooms, get_taxonomy: what the palace holds and where. */
export function taxonomyTools(palace: PalaceView): PalaceTool[] {
  return [
    schemaTool({
      name: "status",
      description:
        "The palace at a glance: its name, embedding, and how many drawers, wings, rooms, mined sources and pinned drawers it holds (pendingVectors > 0 means the vector index is catching up).",
      inputSchema: z.strictObject({}),
      execute: () => palace.status(),
    }),
    schemaTool({
      name: "list_wings",
      description:
        "Every wing (a person or project) with its drawer count, largest first. Use a wing name to scope search.",
      inputSchema: z.strictObject({}),
      async execute() {
        const wings = (await palace.taxonomy()).map(({ wing, count }) => ({ wing, count }));
        return { wings: wings.sort((a, b) => b.count - a.count || a.wing.localeCompare(b.wing)) };
      },
    }),
    schemaTool({
      name: "list_rooms",
      description: "The rooms (topics) of one wing, or of every wing, with drawer counts, largest first.",
      inputSchema: z.strictObject({
        wing: optional(text("a wing name").describe("The wing whose rooms to list; leave out for all")),
      }),
      async execute({ wing }) {
        if (wing !== undefined && !palace.access.seesWing(wing)) {
          throw palace.access.refusal("read", wing, undefined, "wing");
        }
        const wings = await palace.taxonomy();
        const rooms = wings
          .filter((entry) => wing === undefined || entry.wing === wing)
          .flatMap((entry) => entry.rooms.map(({ room, count }) => ({ wing: entry.wing, room, count })))
          .sort((a, b) => b.count - a.count || a.wing.localeCompare(b.wing) || a.room.localeCompare(b.room));
        return { ...(wing === undefined ? {} : { wing }), rooms };
      },
    }),
    schemaTool({
      name: "get_taxonomy",
      description:
        "The whole layout: every wing, its rooms, and each room's halls, with drawer counts, sorted by name.",
      inputSchema: z.strictObject({}),
      async execute() {
        return { wings: await palace.taxonomy() };
      },
    }),
  ].map(reading);
}
