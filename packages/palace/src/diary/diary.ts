import { parseIsoTime, rethrowIfFatal } from "@atrium/spec";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import { invalidInput } from "../errors.js";
import type { Palace } from "../palace.js";

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
  entry: string;
  /** The topic given when it was written, if any. */
  topic?: string;
  /** The room: the topic, else the entry's date (YYYY-MM-DD, UTC). */
  room: string;
  timestamp: string;
}

export interface DiaryWriteOptions {
  /** Files the entry in this room instead of the day's. */
  topic?: string;
  /** ISO 8601 time of the entry; default now. */
  timestamp?: string;
}

export interface DiaryReadOptions {
  /** The newest this many entries (default 10, at most `maxListLimit`). */
  last?: number;
  /** Only entries at or after this ISO 8601 time. */
  since?: string;
  /** Only entries written under this topic. */
  topic?: string;
}

/**
 * Writes an entry in `agent`'s diary: a drawer in wing `diary:<agent>`, hall "diary", room = the
 * topic or the day. The entry's time is part of its id, so writing the same words on another
 * occasion is another entry, and repeating one call files nothing new (`created: false`).
 */
export async function diaryWrite(
  palace: Palace,
  agent: string,
  entry: string,
  options: DiaryWriteOptions = {},
): Promise<{ id: string; created: boolean; room: string; timestamp: string }> {
  checkAgent(agent, palace);
  if (typeof entry !== "string" || entry.trim() === "") throw invalidInput("entry", "must be non-empty text");
  const timestamp = options.timestamp ?? new Date().toISOString();
  if (typeof timestamp !== "string") throw invalidInput("timestamp", "must be an ISO 8601 time");
  const ms = checkedTime(timestamp, "timestamp");
  const topic = options.topic;
  if (topic !== undefined && (typeof topic !== "string" || topic.trim() === "")) {
    throw invalidInput("topic", "must be non-empty text when given");
  }
  const room = topic ?? new Date(ms).toISOString().slice(0, 10);
  const [result] = await palace.file([
    {
      content: entry,
      wing: diaryWing(agent),
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

/** `agent`'s diary entries, newest first. */
export async function diaryRead(
  palace: Palace,
  agent: string,
  options: DiaryReadOptions = {},
): Promise<DiaryEntry[]> {
  checkAgent(agent, palace);
  const last = options.last ?? DIARY_DEFAULT_LAST;
  if (!Number.isInteger(last) || last < 1 || last > palace.limits.maxListLimit) {
    throw invalidInput(
      "last",
      `must be an integer from 1 to ${palace.limits.maxListLimit}, got ${String(last)}`,
    );
  }
  const conditions = ["d.wing = @wing", "d.hall = @hall"];
  const params: Record<string, string | number> = { wing: diaryWing(agent), hall: DIARY_HALL, last };
  if (options.since !== undefined) {
    if (typeof options.since !== "string") throw invalidInput("since", "must be an ISO 8601 time");
    conditions.push("d.timestamp_ms >= @since");
    params.since = checkedTime(options.since, "since");
  }
  if (options.topic !== undefined) {
    if (typeof options.topic !== "string" || options.topic.trim() === "") {
      throw invalidInput("topic", "must be non-empty text when given");
    }
    conditions.push("d.room = @topic");
    params.topic = options.topic;
  }
  const rows = palace
    .internals()
    .db.prepare(
      `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE ${conditions.join(" AND ")} ORDER BY d.timestamp_ms DESC, d.rowid DESC LIMIT @last`,
    )
    .all(params) as DrawerRow[];
  return rows.map((row) => {
    const drawer = rowToDrawer(row);
    const topic = drawer.metadata?.topic;
    return {
      id: drawer.id,
      agent,
      entry: drawer.content,
      ...(typeof topic === "string" ? { topic } : {}),
      room: drawer.room,
      timestamp: drawer.timestamp,
    };
  });
}

function checkAgent(agent: unknown, palace: Palace): void {
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
