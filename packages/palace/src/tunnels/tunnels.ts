import { createHash } from "node:crypto";
import { PalaceAccess } from "../access/palace-access.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import type { SqlDatabase } from "../db/sql/sql-database.js";
import { invalidInput, PalaceError } from "../errors.js";
import type { PalaceLimits } from "../limits.js";
import { createTunnelTables, type TunnelDbRow } from "./tunnel-schema.js";
import type {
  DerivedTunnel,
  Tunnel,
  TunnelDestination,
  TunnelEnd,
  TunnelInput,
  TunnelMap,
  TunnelRow,
} from "./tunnel-types.js";

const NUL = "\u0000";

/** Drawers `follow` returns per destination when not told how many. */
const FOLLOW_DEFAULT_LIMIT = 10;

/** Where to look for tunnels: a wing, or one room of it. */
export interface TunnelScope {
  wing?: string;
  room?: string;
}

/**
 * Tunnels between the palace's rooms. Derived ones need no storage: a room name present in two
 * or more wings (the "same topic" in two people's or projects' wings). Explicit ones are rows of
 * the `tunnels` table, linking two rooms or two drawers with an optional label. Writes are one
 * `BEGIN IMMEDIATE` statement each, so they serialize with every other palace writer.
 */
export class Tunnels {
  /**
   * With `access` (see `scoped`), every answer leaves out what it cannot read: a tunnel is seen
   * only when both its ends are readable, and only readable wings count toward a shared room.
   */
  constructor(
    private readonly db: SqlDatabase,
    private readonly limits: Readonly<PalaceLimits>,
    private readonly access: PalaceAccess = PalaceAccess.ADMIN,
  ) {
    if (access.isAdmin) createTunnelTables(db);
  }

  /** The same tunnels as `access` sees them. */
  scoped(access: PalaceAccess): Tunnels {
    return new Tunnels(this.db, this.limits, access);
  }

  /** Room names shared by two or more wings; with a scope, only those touching it. */
  derived(scope: TunnelScope = {}): DerivedTunnel[] {
    const { wing, room } = this.checkScope(scope);
    const confined = this.access.readSql("d");
    const readable = confined ? ` WHERE ${confined.sql}` : "";
    const conditions = [
      `room IN (SELECT room FROM drawers d${readable} GROUP BY room HAVING COUNT(DISTINCT wing) >= 2)`,
    ];
    const params: string[] = [...(confined?.params ?? [])];
    if (confined) {
      conditions.push(confined.sql);
      params.push(...confined.params);
    }
    if (room !== undefined) {
      conditions.push("room = ?");
      params.push(room);
    }
    if (wing !== undefined) {
      const inScope = this.access.readSql("w");
      conditions.push(
        `room IN (SELECT room FROM drawers w WHERE w.wing = ?${inScope ? ` AND ${inScope.sql}` : ""})`,
      );
      params.push(wing, ...(inScope?.params ?? []));
    }
    // Bytewise, as SQLite orders text, whatever the PostgreSQL database's own collation.
    const bytewise = this.db.dialect.name === "postgres" ? ' COLLATE "C"' : "";
    const rows = this.db
      .prepare(
        `SELECT room, wing, COUNT(*) AS n FROM drawers d WHERE ${conditions.join(" AND ")} GROUP BY room, wing ORDER BY room${bytewise}, wing${bytewise}`,
      )
      .all(...params) as { room: string; wing: string; n: number }[];
    const tunnels: DerivedTunnel[] = [];
    for (const row of rows) {
      let last = tunnels[tunnels.length - 1];
      if (last?.room !== row.room) {
        last = { room: row.room, wings: [] };
        tunnels.push(last);
      }
      last.wings.push({ wing: row.wing, drawers: row.n });
    }
    return tunnels;
  }

  /** Both kinds of tunnel touching the scope (every tunnel without one). */
  find(scope: TunnelScope = {}): TunnelMap {
    return { derived: this.derived(scope), explicit: this.list(scope) };
  }

  /**
   * Links two rooms or two drawers. A drawer end must name a filed drawer; a room end may name a
   * room with nothing in it yet. Creating the same link (same ends, same label) again returns the
   * stored one with `created: false`.
   */
  create(input: TunnelInput): { tunnel: Tunnel; created: boolean } {
    if (typeof input !== "object" || input === null) throw invalidInput("tunnel", "must be an object");
    const from = this.checkEnd(input.from, "from");
    const to = this.checkEnd(input.to, "to");
    const label = input.label === undefined ? undefined : this.checkName(input.label, "label");
    // A link is written in its `from` end and points at a place the caller reads.
    this.assertEnd(from, "write", "from");
    this.assertEnd(to, "read", "to");
    if (endKey(from) === endKey(to)) {
      throw invalidInput("to", "is the same place as from; a tunnel links two different rooms or drawers");
    }
    const id = tunnelId(from, to, label);
    return this.db
      .transaction(() => {
        const stored = this.get(id);
        if (stored) return { tunnel: stored, created: false };
        for (const [end, field] of [
          [from, "from"],
          [to, "to"],
        ] as const) {
          if ("drawerId" in end && !this.db.prepare("SELECT 1 FROM drawers WHERE id = ?").get(end.drawerId)) {
            throw new PalaceError(
              "palace/not-found",
              `${field}.drawerId: no drawer has id ${end.drawerId}; find ids with search or list`,
            );
          }
        }
        const tunnel: Tunnel = {
          id,
          from,
          to,
          ...(label === undefined ? {} : { label }),
          createdAt: new Date().toISOString(),
        };
        this.insert(tunnel);
        return { tunnel, created: true };
      })
      .immediate();
  }

  get(id: string): Tunnel | undefined {
    if (typeof id !== "string" || id === "") throw invalidInput("id", "must be a tunnel id (tn_...)");
    // No stored id holds NUL, and PostgreSQL cannot even be asked about one.
    if (id.includes(NUL)) return undefined;
    const row = this.db.prepare("SELECT * FROM tunnels WHERE id = ?").get(id) as TunnelDbRow | undefined;
    const tunnel = row && rowToTunnel(row);
    return tunnel && this.visible(tunnel) ? tunnel : undefined;
  }

  /**
   * Explicit tunnels in creation order; with a scope, those with an end in it (a room end in the
   * wing or room, or a drawer end whose drawer is filed there).
   */
  list(scope: TunnelScope = {}): Tunnel[] {
    const { wing, room } = this.checkScope(scope);
    if (wing === undefined && room === undefined) {
      return (this.db.prepare("SELECT * FROM tunnels ORDER BY seq").all() as TunnelDbRow[])
        .map(rowToTunnel)
        .filter((tunnel) => this.visible(tunnel));
    }
    const side = (prefix: "from" | "to") => {
      const match = [
        ...(wing === undefined ? [] : ["d.wing = @wing"]),
        ...(room === undefined ? [] : ["d.room = @room"]),
      ].join(" AND ");
      const roomMatch = [
        ...(wing === undefined ? [] : [`t.${prefix}_wing = @wing`]),
        ...(room === undefined ? [] : [`t.${prefix}_room = @room`]),
      ].join(" AND ");
      return `(${roomMatch}) OR EXISTS (SELECT 1 FROM drawers d WHERE d.id = t.${prefix}_drawer AND ${match})`;
    };
    const rows = this.db
      .prepare(`SELECT t.* FROM tunnels t WHERE ${side("from")} OR ${side("to")} ORDER BY t.seq`)
      .all({
        ...(wing === undefined ? {} : { wing }),
        ...(room === undefined ? {} : { room }),
      }) as TunnelDbRow[];
    return rows.map(rowToTunnel).filter((tunnel) => this.visible(tunnel));
  }

  /** Removes an explicit tunnel; false when none has this id (or the caller cannot see it). */
  delete(id: string): boolean {
    if (typeof id !== "string" || id === "") throw invalidInput("id", "must be a tunnel id (tn_...)");
    if (id.includes(NUL)) return false;
    if (!this.access.isAdmin) {
      const tunnel = this.get(id);
      if (!tunnel) return false;
      this.assertEnd(tunnel.from, "write", "id");
    }
    return this.db
      .transaction(() => this.db.prepare("DELETE FROM tunnels WHERE id = ?").run(id).changes > 0)
      .immediate();
  }

  /**
   * The other side of tunnels. From a tunnel id: its `to` end (its `from` end with `reverse`).
   * From a room: every room sharing its name in another wing, and the far end of every explicit
   * tunnel touching the room. From a drawer: the far ends of the explicit tunnels at it.
   */
  follow(
    start: string | TunnelEnd,
    options: { limit?: number; reverse?: boolean } = {},
  ): TunnelDestination[] {
    const limit = options.limit ?? FOLLOW_DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > this.limits.maxListDrawers) {
      throw invalidInput(
        "limit",
        `must be an integer from 1 to ${this.limits.maxListDrawers}, got ${String(limit)}`,
      );
    }
    if (typeof start === "string") {
      const tunnel = this.get(start);
      if (!tunnel) {
        throw new PalaceError(
          "palace/not-found",
          `No tunnel has id ${start}; list them with listTunnels / find`,
        );
      }
      const end = options.reverse ? tunnel.from : tunnel.to;
      return [{ tunnel, end, drawers: this.drawersAt(end, limit) }];
    }
    const here = this.checkEnd(start, "start");
    this.assertEnd(here, "read", "start");
    const destinations: TunnelDestination[] = [];
    if ("room" in here) {
      for (const derived of this.derived({ room: here.room })) {
        for (const { wing } of derived.wings) {
          if (wing === here.wing) continue;
          const end = { wing, room: derived.room };
          destinations.push({ end, drawers: this.drawersAt(end, limit) });
        }
      }
    }
    const key = endKey(here);
    for (const tunnel of this.explicitAt(here)) {
      const end = endKey(tunnel.from) === key ? tunnel.to : tunnel.from;
      destinations.push({ tunnel, end, drawers: this.drawersAt(end, limit) });
    }
    return destinations;
  }

  /** Every explicit tunnel, as export rows. */
  *export(): Generator<TunnelRow> {
    for (const tunnel of this.list()) yield { kind: "tunnel", ...tunnel };
  }

  /**
   * Takes back exported tunnels (inside the caller's transaction): an id already stored is
   * skipped; a row whose id does not match its ends is refused, naming the row.
   */
  import(rows: Iterable<unknown>, where: (index: number) => string = (index) => `tunnels[${index}]`): number {
    let added = 0;
    let index = 0;
    for (const value of rows) {
      const at = where(index++);
      if (typeof value !== "object" || value === null) throw invalidInput(at, "must be a tunnel object");
      const row = value as Partial<Tunnel>;
      const from = this.checkEnd(row.from, `${at}.from`);
      const to = this.checkEnd(row.to, `${at}.to`);
      const label = row.label === undefined ? undefined : this.checkName(row.label, `${at}.label`);
      if (typeof row.createdAt !== "string")
        throw invalidInput(`${at}.createdAt`, "must be an ISO 8601 time");
      if (row.id !== tunnelId(from, to, label)) {
        throw invalidInput(
          at,
          `tunnel ${String(row.id)} does not match its ends and label; restore the line from the original export`,
        );
      }
      if (this.get(row.id)) continue;
      this.insert({
        id: row.id,
        from,
        to,
        ...(label === undefined ? {} : { label }),
        createdAt: row.createdAt,
      });
      added++;
    }
    return added;
  }

  private insert(tunnel: Tunnel): void {
    const side = (end: TunnelEnd) =>
      "drawerId" in end ? [null, null, end.drawerId] : [end.wing, end.room, null];
    this.db
      .prepare(
        "INSERT INTO tunnels (id, from_wing, from_room, from_drawer, to_wing, to_room, to_drawer, label, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(tunnel.id, ...side(tunnel.from), ...side(tunnel.to), tunnel.label ?? null, tunnel.createdAt);
  }

  private explicitAt(end: TunnelEnd): Tunnel[] {
    const sql =
      "drawerId" in end
        ? "SELECT * FROM tunnels WHERE from_drawer = @drawer OR to_drawer = @drawer ORDER BY seq"
        : "SELECT * FROM tunnels WHERE (from_wing = @wing AND from_room = @room) OR (to_wing = @wing AND to_room = @room) ORDER BY seq";
    const params = "drawerId" in end ? { drawer: end.drawerId } : { wing: end.wing, room: end.room };
    return (this.db.prepare(sql).all(params) as TunnelDbRow[])
      .map(rowToTunnel)
      .filter((tunnel) => this.visible(tunnel));
  }

  /** Where an end is: its room, or the room of the drawer it names (undefined: no such drawer). */
  private placeOf(end: TunnelEnd): { wing: string; room: string } | undefined {
    if (!("drawerId" in end)) return end;
    return this.db.prepare("SELECT wing, room FROM drawers WHERE id = ?").get(end.drawerId) as
      | { wing: string; room: string }
      | undefined;
  }

  /** Both ends readable (a drawer end whose drawer is gone counts as readable only to an admin). */
  private visible(tunnel: Tunnel): boolean {
    if (this.access.isAdmin) return true;
    return [tunnel.from, tunnel.to].every((end) => {
      const place = this.placeOf(end);
      return place !== undefined && this.access.canRead(place.wing, place.room);
    });
  }

  private assertEnd(end: TunnelEnd, kind: "read" | "write", field: string): void {
    if (this.access.isAdmin) return;
    const place = this.placeOf(end);
    if (place === undefined) {
      throw new PalaceError(
        "palace/not-found",
        `${field}.drawerId: no drawer has id ${(end as { drawerId: string }).drawerId}; find ids with search or list`,
      );
    }
    const allowed =
      kind === "read"
        ? this.access.canRead(place.wing, place.room)
        : this.access.canWrite(place.wing, place.room);
    if (!allowed) {
      // A drawer the caller cannot read is answered as missing, so its existence does not leak.
      if ("drawerId" in end && !this.access.canRead(place.wing, place.room)) {
        throw new PalaceError(
          "palace/not-found",
          `${field}.drawerId: no drawer has id ${end.drawerId}; find ids with search or list`,
        );
      }
      throw this.access.refusal(kind, place.wing, place.room, field);
    }
  }

  private drawersAt(end: TunnelEnd, limit: number) {
    const rows =
      "drawerId" in end
        ? (this.db
            .prepare(`SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.id = ?`)
            .all(end.drawerId) as DrawerRow[])
        : (this.db
            .prepare(
              `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.wing = ? AND d.room = ? ORDER BY d.pinned DESC, d.timestamp_ms DESC, d.rowid DESC LIMIT ?`,
            )
            .all(end.wing, end.room, limit) as DrawerRow[]);
    return rows.map(rowToDrawer);
  }

  private checkScope(scope: TunnelScope): TunnelScope {
    if (typeof scope !== "object" || scope === null) throw invalidInput("scope", "must be an object");
    // A wing the caller cannot read is refused, as every other wing filter is: an empty answer
    // would tell which room names it holds.
    if (typeof scope.wing === "string" && !this.access.seesWing(scope.wing)) {
      throw this.access.refusal("read", scope.wing, undefined, "wing");
    }
    return {
      ...(scope.wing === undefined ? {} : { wing: this.checkName(scope.wing, "wing") }),
      ...(scope.room === undefined ? {} : { room: this.checkName(scope.room, "room") }),
    };
  }

  private checkEnd(end: unknown, field: string): TunnelEnd {
    if (typeof end !== "object" || end === null) {
      throw invalidInput(
        field,
        'must be { wing, room } or { drawerId }, e.g. { "wing": "alice", "room": "travel" }',
      );
    }
    const { wing, room, drawerId } = end as Record<string, unknown>;
    if (drawerId !== undefined) {
      if (wing !== undefined || room !== undefined) {
        throw invalidInput(field, "names a drawerId and a room; a tunnel end is one or the other");
      }
      return { drawerId: this.checkName(drawerId, `${field}.drawerId`) };
    }
    if (wing === undefined || room === undefined) {
      throw invalidInput(field, "must name both wing and room (or a drawerId)");
    }
    return { wing: this.checkName(wing, `${field}.wing`), room: this.checkName(room, `${field}.room`) };
  }

  private checkName(value: unknown, field: string): string {
    if (typeof value !== "string" || value.trim() === "" || value.length > this.limits.maxNameChars) {
      throw invalidInput(
        field,
        `must be non-empty text of at most maxNameChars (${this.limits.maxNameChars}) characters`,
      );
    }
    // PostgreSQL's text cannot hold NUL, and a tunnel's id hashes its ends NUL-separated.
    if (value.includes(NUL)) {
      throw invalidInput(
        field,
        "holds the character U+0000 (NUL), which no wing, room, drawer id or label may hold; remove it",
      );
    }
    return value;
  }
}

/** A tunnel's id: both ends and the label, hashed, so the same link is never stored twice. */
export function tunnelId(from: TunnelEnd, to: TunnelEnd, label: string | undefined): string {
  const hash = createHash("sha256")
    .update(endKey(from))
    .update("\0")
    .update(endKey(to))
    .update("\0")
    .update(label ?? "")
    .digest("hex");
  return `tn_${hash.slice(0, 24)}`;
}

function endKey(end: TunnelEnd): string {
  return "drawerId" in end ? `drawer\0${end.drawerId}` : `room\0${end.wing}\0${end.room}`;
}

function rowToTunnel(row: TunnelDbRow): Tunnel {
  const end = (wing: string | null, room: string | null, drawer: string | null): TunnelEnd =>
    drawer !== null ? { drawerId: drawer } : { wing: wing as string, room: room as string };
  return {
    id: row.id,
    from: end(row.from_wing, row.from_room, row.from_drawer),
    to: end(row.to_wing, row.to_room, row.to_drawer),
    ...(row.label === null ? {} : { label: row.label }),
    createdAt: row.created_at,
  };
}
