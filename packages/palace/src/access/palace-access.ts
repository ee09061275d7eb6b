import { PalaceError } from "../errors.js";
import { type PalaceGrants, parsePalaceGrants, type WingGrant } from "./palace-grants.js";

/** Every room of a wing. */
const WHOLE_WING = "whole wing";
type Rooms = typeof WHOLE_WING | ReadonlySet<string>;

/**
 * The checked form of `PalaceGrants`: answers "may this identity read (write) this wing or room"
 * for every read and write path of a `PalaceView`, and gives the SQL condition that confines a
 * query on `drawers d` to what it may read, so a filter is applied inside the query (a search's
 * top k are the caller's top k, not someone else's hits thrown away).
 */
export class PalaceAccess {
  /** Every wing, read and write, and the palace-wide operations: the palace's owner. */
  static readonly ADMIN = new PalaceAccess("admin", true, new Map(), new Map());

  /** Grants checked against `palaceGrantsSchema`; `who` names the identity in refusals. */
  static of(grants: PalaceGrants, who = "this identity"): PalaceAccess {
    const checked = parsePalaceGrants(grants, `grants of ${who}`);
    if (checked.admin === true) return new PalaceAccess(who, true, new Map(), new Map());
    return new PalaceAccess(who, false, roomsByWing(checked.read), roomsByWing(checked.write));
  }

  private constructor(
    /** Who holds these grants, for error messages. */
    readonly who: string,
    readonly isAdmin: boolean,
    private readonly reads: ReadonlyMap<string, Rooms>,
    private readonly writes: ReadonlyMap<string, Rooms>,
  ) {}

  /** A room of a wing, or (room left out) the whole wing. */
  canRead(wing: string, room?: string): boolean {
    return this.isAdmin || covers(this.reads.get(wing), room);
  }

  canWrite(wing: string, room?: string): boolean {
    return this.isAdmin || covers(this.writes.get(wing), room);
  }

  /** Whether any room of the wing is readable (it may then appear in listings). */
  seesWing(wing: string): boolean {
    return this.isAdmin || this.reads.has(wing);
  }

  /** The wings readable whole (knowledge-graph facts and tunnels need the whole wing); undefined: all. */
  wholeReadableWings(): string[] | undefined {
    if (this.isAdmin) return undefined;
    return [...this.reads].filter(([, rooms]) => rooms === WHOLE_WING).map(([wing]) => wing);
  }

  /** The one wing this identity may write whole, where writes that name no wing go. */
  homeWing(): string | undefined {
    if (this.isAdmin) return undefined;
    const whole = [...this.writes].filter(([, rooms]) => rooms === WHOLE_WING).map(([wing]) => wing);
    return whole.length === 1 ? whole[0] : undefined;
  }

  /** Each readable wing with its rooms (none: the whole wing); empty for an admin, who reads all. */
  readScopes(): { wing: string; rooms?: string[] }[] {
    return [...this.reads].map(([wing, rooms]) =>
      rooms === WHOLE_WING ? { wing } : { wing, rooms: [...rooms] },
    );
  }

  /** The wings named by read grants, for messages. */
  readableNames(): string[] {
    return [...this.reads.keys()];
  }

  /**
   * SQL confining `drawers <alias>` to the readable drawers, with its parameters; undefined for an
   * admin (no condition). With no read grant at all it is a condition nothing meets.
   */
  readSql(alias = "d"): { sql: string; params: string[] } | undefined {
    if (this.isAdmin) return undefined;
    const whole: string[] = [];
    const parts: string[] = [];
    const params: string[] = [];
    for (const [wing, rooms] of this.reads) {
      if (rooms === WHOLE_WING) whole.push(wing);
      else {
        parts.push(`(${alias}.wing = ? AND ${alias}.room IN (${placeholders(rooms.size)}))`);
        params.push(wing, ...rooms);
      }
    }
    if (whole.length > 0) {
      parts.unshift(`${alias}.wing IN (${placeholders(whole.length)})`);
      params.unshift(...whole);
    }
    return parts.length === 0 ? { sql: "1 = 0", params: [] } : { sql: `(${parts.join(" OR ")})`, params };
  }

  /** Throws unless the wing (or room) is readable. Says the same whether or not the wing exists. */
  assertRead(wing: string, room: string | undefined, field: string): void {
    if (!this.canRead(wing, room)) throw this.refusal("read", wing, room, field);
  }

  assertWrite(wing: string, room: string | undefined, field: string): void {
    if (!this.canWrite(wing, room)) throw this.refusal("write", wing, room, field);
  }

  /** Palace-wide operations (import, settings): admins only. */
  assertAdmin(what: string): void {
    if (!this.isAdmin) {
      throw new PalaceError(
        "palace/forbidden",
        `${what} needs an admin grant, which ${this.who} does not hold`,
      );
    }
  }

  refusal(kind: "read" | "write", wing: string, room: string | undefined, field: string): PalaceError {
    const place =
      room === undefined
        ? `wing ${JSON.stringify(wing)}`
        : `room ${JSON.stringify(room)} of wing ${JSON.stringify(wing)}`;
    const held = [...(kind === "read" ? this.reads : this.writes).keys()];
    const hint = held.length === 0 ? `no wing` : held.map((name) => JSON.stringify(name)).join(", ");
    return new PalaceError(
      "palace/forbidden",
      `${field}: ${this.who} may not ${kind} ${place}; its grants let it ${kind} ${hint}`,
    );
  }
}

function covers(rooms: Rooms | undefined, room: string | undefined): boolean {
  if (rooms === undefined) return false;
  if (rooms === WHOLE_WING) return true;
  return room !== undefined && rooms.has(room);
}

function roomsByWing(grants: readonly WingGrant[] | undefined): Map<string, Rooms> {
  const byWing = new Map<string, Rooms>();
  for (const grant of grants ?? []) {
    if (typeof grant === "string") {
      byWing.set(grant, WHOLE_WING);
      continue;
    }
    const held = byWing.get(grant.wing);
    if (held === WHOLE_WING) continue;
    byWing.set(grant.wing, new Set([...(held ?? []), ...grant.rooms]));
  }
  return byWing;
}

/** `?, ?, ?`: a grant names a few wings and rooms, so they go in as parameters of their own. */
function placeholders(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}
