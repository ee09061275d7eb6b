import type { Drawer } from "../drawers/drawer.js";

/** One side of an explicit tunnel: a room of a wing, or one drawer. */
export type TunnelEnd = { wing: string; room: string } | { drawerId: string };

/** An explicit link between two rooms or two drawers (possibly in different wings). */
export interface Tunnel {
  /** "tn_" + 24 hex digits of sha256 over both ends and the label: creating it again is a no-op. */
  id: string;
  from: TunnelEnd;
  to: TunnelEnd;
  /** What the link means ("inspired", "same incident", ...). */
  label?: string;
  createdAt: string;
}

/** What `create` takes. */
export interface TunnelInput {
  from: TunnelEnd;
  to: TunnelEnd;
  label?: string;
}

/** A tunnel nobody made: a room name that two or more wings share. */
export interface DerivedTunnel {
  room: string;
  /** The wings holding that room, with their drawer counts, by wing name. */
  wings: Array<{ wing: string; drawers: number }>;
}

/** Tunnels touching a wing (or a room of it): the shared room names and the explicit links. */
export interface TunnelMap {
  derived: DerivedTunnel[];
  explicit: Tunnel[];
}

/** Where following a tunnel leads, and the drawers found there. */
export interface TunnelDestination {
  /** The explicit tunnel followed; absent when the way was a shared room name. */
  tunnel?: Tunnel;
  end: TunnelEnd;
  /** The linked drawer, or the room's drawers (pinned first, then newest), at most `limit`. */
  drawers: Drawer[];
}

/** A line of the palace export holding one explicit tunnel. */
export type TunnelRow = { kind: "tunnel" } & Tunnel;
