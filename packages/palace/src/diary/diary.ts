import { parseIsoTime, rethrowIfFatal } from "@atrium/spec";
import { palaceCore } from "../core/palace-core.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import { invalidInput } from "../errors.js";
import type { Palace } from "../palace.js";
import { PalaceView } from "../view/palace-view.js";

/** The hall every diary entry is filed in. */
export const DIARY_HALL = "diary";

/** Entries `diaryRead` returns when not told how many. */
const DIARY_DEFAULT_LAST = 10;

/** The wing an agent's diary lives in. */
export function diaryWing(agent: string): string {
  return `diary:${agent}`;
}

export interface DiaryEntry {
  id: string;
  agent: string;
  /** The wing it is filed in: in a wing others write too, who wrote it. */
  wing: string;
  entry: string;
  /** The topic given when it was written, if any. */
  topic?: string;
  /** The room: the topic, else the entry's date (YYYY-MM-DD, UTC). */
  room: string;
  timestamp: string;
}

export interface DiaryWriteOptions {
  /**
   * The wing the entry is filed in. Default: for a view, the one wing it writes; for the
   * palace's owner, `diary:<agent>`.
   */
  wing?: string;
  /** Files the entry in this room instead of the day's. */
  topic?: string;
  /** ISO 8601 time of the entry; default now. */
  timestamp?: string;
}

export interface DiaryReadOptions {
  /** Only entries filed in this wing (default: every wing the caller reads). */
  wing?: string;
  /** The newest this many entries (default 10, at most `maxListDrawers`). */
  last?: number;
  /** Only entries at or after this ISO 8601 time. */
  since?: string;
  /** Only entries written under this topic. */
  topic?: string;
}

/**
 * Writes an entry in `agent`'s diary: a drawer in hall "diary" spoken by the agent, in the
 * caller's wing (see `DiaryWriteOptions.wing`), room = the topic or the day. The entry's time is
 * part of its id, so writing the same words on another occasion is another entry, and repeating
 * one call files nothing new (`created: false`). Give a `PalaceView` to write as an identity.
 */
export async function diaryWrite(
  target: Palace | PalaceView,
  agent: string,
  entry: string,
  options: DiaryWriteOptions = {},
): Promise<{ id: string; created: boolean; room: string; timestamp: string }> {
  const palace = target instanceof PalaceView ? target.palace : target;
  checkAgent(agent, palace);
  const scoped = target instanceof PalaceView && !target.access.isAdmin;
  const wing = options.wing ?? (scoped ? target.homeWing : diaryWing(agent));
  if (wing === undefined) {
    throw invalidInput(
      "wing",
      "name the wing to write the diary in; this identity may write more than one wing, or none",
    );
  }
  if (typeof entry !== "string" || entry.trim() === "") throw invalidInput("entry", "must be non-empty text");
  const timestamp = options.timestamp ?? new Date().toISOString();
  if (typeof timestamp !== "string") throw invalidInput("timestamp", "must be an ISO 8601 time");
  const ms = checkedTime(timestamp, "timestamp");
  const topic = options.topic;
  if (topic !== undefined && (typeof topic !== "string" || topic.trim() === "")) {
    throw invalidInput("topic", "must be non-empty text when given");
  }
  const room = topic ?? new Date(ms).toISOString().slice(0, 10);
  const [result] = await target.file([
    {
      content: entry,
      wing,
      room,
      hall: DIARY_HALL,
      source: diaryWing(agent),
      speaker: agent,
      turnId: timestamp,
      timestamp,
      ...(topic === undefined ? {} : { metadata: { topic } }),
    },
  ]);
  return { ...(result as { id: string; created: boolean }), room, timestamp };
}

/** `agent`'s diary entries, newest first: only those the caller reads when given a `PalaceView`. */
export async function diaryRead(
  target: Palace | PalaceView,
  agent: string,
  options: DiaryReadOptions = {},
): Promise<DiaryEntry[]> {
  const palace = target instanceof PalaceView ? target.palace : target;
  checkAgent(agent, palace);
  const last = options.last ?? DIARY_DEFAULT_LAST;
  if (!Number.isInteger(last) || last < 1 || last > palace.limits.maxListDrawers) {
    throw invalidInput(
      "last",
      `must be an integer from 1 to ${palace.limits.maxListDrawers}, got ${String(last)}`,
    );
  }
  // An entry is a diary-hall drawer the agent spoke; the wing is wherever it was written.
  const conditions = ["d.hall = ?", "d.speaker = ?"];
  const values: (string | number)[] = [DIARY_HALL, agent];
  const add = (condition: string, ...more: (string | number)[]) => {
    conditions.push(condition);
    values.push(...more);
  };
  if (options.wing !== undefined) {
    if (typeof options.wing !== "string" || options.wing === "")
      throw invalidInput("wing", "must be a wing name");
    if (options.wing.includes("\u0000")) throw invalidInput("wing", NUL_PROBLEM);
    if (target instanceof PalaceView) target.access.assertRead(options.wing, undefined, "wing");
    add("d.wing = ?", options.wing);
  }
  const confined = target instanceof PalaceView ? target.access.readSql("d") : undefined;
  if (confined) add(confined.sql, ...confined.params);
  if (options.since !== undefined) {
    if (typeof options.since !== "string") throw invalidInput("since", "must be an ISO 8601 time");
    add("d.timestamp_ms >= ?", checkedTime(options.since, "since"));
  }
  if (options.topic !== undefined) {
    if (typeof options.topic !== "string" || options.topic.trim() === "") {
      throw invalidInput("topic", "must be non-empty text when given");
    }
    if (options.topic.includes("\u0000")) throw invalidInput("topic", NUL_PROBLEM);
    add("d.room = ?", options.topic);
  }
  const rows = palaceCore(palace)
    .db.prepare(
      `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE ${conditions.join(" AND ")} ORDER BY d.timestamp_ms DESC, d.rowid DESC LIMIT ?`,
    )
    .all(...values, last) as DrawerRow[];
  return rows.map((row) => {
    const drawer = rowToDrawer(row);
    const topic = drawer.metadata?.topic;
    return {
      id: drawer.id,
      agent,
      wing: drawer.wing,
      entry: drawer.content,
      ...(typeof topic === "string" ? { topic } : {}),
      room: drawer.room,
      timestamp: drawer.timestamp,
    };
  });
}

function checkAgent(agent: unknown, palace: Palace): void {
  if (typeof agent === "string" && agent.includes("\u0000")) throw invalidInput("agent", NUL_PROBLEM);
  if (
    typeof agent !== "string" ||
    agent.trim() === "" ||
    diaryWing(agent).length > palace.limits.maxNameChars
  ) {
    throw invalidInput(
      "agent",
      `must be a non-empty name of at most ${palace.limits.maxNameChars - diaryWing("").length} characters`,
    );
  }
}

/**
 * Names the palace files under cannot hold NUL (PostgreSQL's text cannot, and SQLite palaces refuse
 * it in wings and rooms), so a diary name or filter holding one is refused on both stores.
 */
const NUL_PROBLEM = "holds the character U+0000 (NUL), which no diary name may hold; remove it";

function checkedTime(value: string, field: string): number {
  try {
    return parseIsoTime(value, field);
  } catch (error) {
    rethrowIfFatal(error);
    throw invalidInput(
      field,
      `${JSON.stringify(value)} is not an ISO 8601 time; write e.g. 2024-05-01T09:30:00Z`,
    );
  }
}
