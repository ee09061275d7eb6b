import type { Database } from "better-sqlite3";

/**
 * The explicit tunnels' table, beside the palace's own in palace.sqlite. An end is a room
 * (wing + room) or a drawer id, so each side has three nullable columns and exactly one shape
 * filled. Drawer ends are not foreign keys: deleting a drawer leaves a tunnel that leads nowhere
 * rather than failing the delete.
 */
const TUNNELS_SQL = `
CREATE TABLE IF NOT EXISTS tunnels (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  from_wing TEXT,
  from_room TEXT,
  from_drawer TEXT,
  to_wing TEXT,
  to_room TEXT,
  to_drawer TEXT,
  label TEXT,
  created_at TEXT NOT NULL,
  CHECK ((from_drawer IS NULL) = (from_wing IS NOT NULL AND from_room IS NOT NULL)),
  CHECK ((to_drawer IS NULL) = (to_wing IS NOT NULL AND to_room IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS tunnels_from_room ON tunnels(from_wing, from_room);
CREATE INDEX IF NOT EXISTS tunnels_to_room ON tunnels(to_wing, to_room);
CREATE INDEX IF NOT EXISTS tunnels_from_drawer ON tunnels(from_drawer);
CREATE INDEX IF NOT EXISTS tunnels_to_drawer ON tunnels(to_drawer);
`;

/** Creates the tunnels table if it is missing; safe on every open. */
export function createTunnelTables(db: Database): void {
  db.transaction(() => db.exec(TUNNELS_SQL)).immediate();
}

/** A `tunnels` row as better-sqlite3 returns it. */
export interface TunnelDbRow {
  seq: number;
  id: string;
  from_wing: string | null;
  from_room: string | null;
  from_drawer: string | null;
  to_wing: string | null;
  to_room: string | null;
  to_drawer: string | null;
  label: string | null;
  created_at: string;
}
