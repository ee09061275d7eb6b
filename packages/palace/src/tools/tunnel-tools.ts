import { schemaTool } from "@atrium/kit";
import { z } from "zod";
import { PalaceError } from "../errors.js";
import type { TunnelEnd } from "../tunnels/index.js";
import type { PalaceView } from "../view/palace-view.js";
import { type PalaceTool, reading, writing } from "./tool-annotations.js";
import { defined, optional, text, wholeNumber } from "./tool-fields.js";

/**
 * One end of a tunnel: a room of a wing, or one drawer. Which fields go together is checked by
 * the palace's `Tunnels`, whose messages name the field (`from: must name both wing and room`).
 */
const endField = (which: string) =>
  z
    .strictObject(
      {
        wing: optional(text("a wing name")),
        room: optional(text("a room name")),
        drawerId: optional(text("a drawer id")),
      },
      { error: `must be an object: { wing, room } or { drawerId } (${which})` },
    )
    .describe(`The ${which} end: { "wing": ..., "room": ... } or { "drawerId": ... }`);

const scopeFields = {
  wing: optional(text("a wing name").describe("Only tunnels touching this wing")),
  room: optional(text("a room name").describe("Only tunnels touching this room")),
};

/** find_tunnels, create_tunnel, list_tunnels, delete_tunnel, follow_tunnels: links between rooms. */
export function tunnelTools(palace: PalaceView): PalaceTool[] {
  const tunnels = palace.tunnels;
  return [
    reading(
      schemaTool({
        name: "find_tunnels",
        description:
          "Tunnels touching a wing or room (all without one): derived ones (a room name two or more wings share, the same topic in two people's or projects' wings) and explicit links made with create_tunnel.",
        inputSchema: z.strictObject(scopeFields),
        execute: (scope) => tunnels.find(defined(scope)),
      }),
    ),
    writing(
      schemaTool({
        name: "create_tunnel",
        description:
          "Link two rooms (or two drawers), possibly in different wings, with an optional label saying why. Creating the same link again answers created: false.",
        inputSchema: z.strictObject({
          from: endField("from"),
          to: endField("to"),
          label: optional(text("a label").describe('What the link means, e.g. "same incident"')),
        }),
        execute: ({ from, to, label }) =>
          tunnels.create({
            from: defined(from) as TunnelEnd,
            to: defined(to) as TunnelEnd,
            ...defined({ label }),
          }),
      }),
      { destructive: false, idempotent: true },
    ),
    reading(
      schemaTool({
        name: "list_tunnels",
        description:
          "Explicit tunnels in creation order, optionally only those with an end in a wing or room.",
        inputSchema: z.strictObject(scopeFields),
        execute: (scope) => ({ tunnels: tunnels.list(defined(scope)) }),
      }),
    ),
    writing(
      schemaTool({
        name: "delete_tunnel",
        description: "Remove an explicit tunnel by id (derived tunnels go away with their rooms).",
        inputSchema: z.strictObject({ id: text("a tunnel id (tn_...)").describe("The tunnel's id") }),
        execute({ id }) {
          if (!tunnels.delete(id)) {
            throw new PalaceError("palace/not-found", `No tunnel has id ${id}; find ids with list_tunnels`);
          }
          return { id, deleted: true };
        },
      }),
      { destructive: true, idempotent: true },
    ),
    reading(
      schemaTool({
        name: "follow_tunnels",
        description:
          "Go through tunnels and see what is on the other side: from a tunnel id (its to end; reverse: its from end), from a room (every room sharing its name in another wing, and the far end of each explicit tunnel there), or from a drawer. Returns each destination with its drawers.",
        inputSchema: z.strictObject({
          id: optional(text("a tunnel id (tn_...)").describe("Follow this tunnel")),
          wing: optional(text("a wing name").describe("Start from this wing's room (with room)")),
          room: optional(text("a room name").describe("Start from this room (with wing)")),
          drawerId: optional(text("a drawer id").describe("Start from this drawer")),
          limit: optional(
            wholeNumber("limit", 1, palace.limits.maxListDrawers).describe(
              "Drawers per destination (default 10)",
            ),
          ),
          reverse: optional(
            z
              .boolean({ error: "must be true or false (reverse)" })
              .describe("With id: go to the tunnel's from end"),
          ),
        }),
        execute({ id, wing, room, drawerId, limit, reverse }) {
          const place = defined({ wing, room, drawerId });
          if ((id === undefined) === (Object.keys(place).length === 0)) {
            throw new PalaceError(
              "palace/invalid-input",
              "follow_tunnels: give a tunnel id, or where to start (wing and room, or drawerId), not both",
            );
          }
          const start = id ?? (place as TunnelEnd);
          return { destinations: tunnels.follow(start, defined({ limit, reverse })) };
        },
      }),
    ),
  ];
}
