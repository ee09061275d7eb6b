import type { DrawerChanges } from "../db/drawer-registry.js";
import { type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import type { Drawer, DrawerDraft } from "../drawers/drawer.js";
import { drawerId } from "../drawers/drawer-id.js";
import { type CheckedDraft, checkDraft, checkMetadata, checkName } from "../drawers/validate-draft.js";
import { invalidInput, PalaceError } from "../errors.js";
import type { PalaceLimits } from "../limits.js";
import type { PalaceCore } from "./palace-core.js";
import type { DrawerUpdate, FileResult } from "./palace-types.js";

// Drawers one at a time, by id: file, get, update, delete, and the checks their input goes through.

/** Files drafts; each result says whether it was new. One transaction for the whole batch. */
export async function fileDrafts(core: PalaceCore, drafts: readonly DrawerDraft[]): Promise<FileResult[]> {
  core.ensureOpen();
  const checked = checkDrafts(drafts, "drafts", core.limits);
  return core.exclusive(async () => {
    const filedAt = new Date().toISOString();
    const ids = checked.map((draft) => drawerId(draft));
    const results = core.db
      .transaction(() => {
        const seen = new Set<string>();
        // One query for the batch, not one per draft (a round trip each on PostgreSQL).
        const stored = new Map(core.registry.byIds(ids).map((row) => [row.id, row]));
        const filed = checked.map((draft, at) => {
          const id = ids[at] as string;
          if (seen.has(id)) return { id, created: false };
          seen.add(id);
          const existing = stored.get(id);
          if (existing) {
            // Filed again (directly, or under another source): that keeps it when its first source lets go.
            core.registry.hold(existing, draft.source, draft.position);
            return { id, created: false };
          }
          core.registry.insert(draft, id, filedAt);
          return { id, created: true };
        });
        core.registry.flushLexical();
        return filed;
      })
      .immediate();
    await core.applyVectors();
    return results;
  });
}

export async function getDrawer(core: PalaceCore, id: string): Promise<Drawer | undefined> {
  core.ensureOpen();
  const row = core.registry.byId(id);
  return row && rowToDrawer(row);
}

/**
 * Changes a drawer in place (room, hall, speaker, timestamp, metadata, pin, ...), keeping its
 * id. Content, wing and turnId make the id: to edit them, delete the drawer and file a new one.
 */
export async function updateDrawer(core: PalaceCore, id: string, changes: DrawerUpdate): Promise<Drawer> {
  core.ensureOpen();
  for (const key of ["content", "wing", "turnId"]) {
    if (key in (changes as object)) {
      throw invalidInput(
        key,
        "is part of the drawer's id and cannot be updated; delete the drawer and file the new text instead",
      );
    }
  }
  const patch = checkUpdate(changes, core.limits);
  return core.exclusive(async () => {
    const updated = core.db
      .transaction(() => {
        const row = core.registry.byId(id);
        if (!row) return undefined;
        core.registry.update(row, patch);
        core.registry.flushLexical();
        return core.registry.byId(id) as DrawerRow;
      })
      .immediate();
    if (!updated)
      throw new PalaceError("palace/not-found", `No drawer has id ${id}; find ids with search or list`);
    await core.applyVectors();
    return rowToDrawer(updated);
  });
}

/** Removes a drawer; false when there was none with this id. */
export async function deleteDrawer(core: PalaceCore, id: string): Promise<boolean> {
  core.ensureOpen();
  return core.exclusive(async () => {
    const removed = core.db
      .transaction(() => {
        const row = core.registry.byId(id);
        if (row) core.registry.remove(row);
        core.registry.flushLexical();
        return row !== undefined;
      })
      .immediate();
    if (removed) await core.applyVectors();
    return removed;
  });
}

/** A batch of drafts checked against the limits, each stamped "now" when it has no time. */
export function checkDrafts(
  drafts: readonly DrawerDraft[],
  field: string,
  limits: Readonly<PalaceLimits>,
): CheckedDraft[] {
  if (!Array.isArray(drafts)) throw invalidInput(field, "must be an array of drafts");
  if (drafts.length > limits.maxBatchDrafts) {
    throw new PalaceError(
      "palace/limit",
      `${field} has ${drafts.length} drafts, more than maxBatchDrafts (${limits.maxBatchDrafts}); file them in smaller batches`,
    );
  }
  const now = new Date().toISOString();
  return drafts.map((draft, at) => checkDraft(draft, `${field}[${at}]`, limits, now));
}

const UPDATABLE = new Set([
  "room",
  "hall",
  "speaker",
  "sessionId",
  "source",
  "position",
  "timestamp",
  "metadata",
  "pinned",
]);

function checkUpdate(changes: DrawerUpdate, limits: Readonly<PalaceLimits>): DrawerChanges {
  if (typeof changes !== "object" || changes === null) throw invalidInput("changes", "must be an object");
  for (const key of Object.keys(changes)) {
    if (!UPDATABLE.has(key))
      throw invalidInput(key, `is not a field update can change; known: ${[...UPDATABLE].join(", ")}`);
  }
  const patch: DrawerChanges = {};
  const text = (key: "room" | "hall", value: unknown) => {
    if (typeof value !== "string" || value.trim() === "" || value.length > limits.maxNameChars) {
      throw invalidInput(key, `must be non-empty text of at most ${limits.maxNameChars} characters`);
    }
    checkName(value, key, limits, true);
    return value;
  };
  const optionalText = (key: string, value: unknown) => {
    if (value === null) return null;
    if (typeof value !== "string" || value.trim() === "" || value.length > limits.maxNameChars) {
      throw invalidInput(key, `must be null or non-empty text of at most ${limits.maxNameChars} characters`);
    }
    checkName(value, key, limits, true);
    return value;
  };
  if (changes.room !== undefined) patch.room = text("room", changes.room);
  if (changes.hall !== undefined) patch.hall = text("hall", changes.hall);
  if (changes.speaker !== undefined) patch.speaker = optionalText("speaker", changes.speaker);
  if (changes.sessionId !== undefined) patch.sessionId = optionalText("sessionId", changes.sessionId);
  if (changes.source !== undefined) patch.source = optionalText("source", changes.source);
  if (changes.position !== undefined) {
    if (changes.position !== null && !(Number.isInteger(changes.position) && changes.position >= 0)) {
      throw invalidInput("position", "must be null or a non-negative integer");
    }
    patch.position = changes.position;
  }
  if (changes.timestamp !== undefined) {
    const checked = checkDraft(
      { content: "x", wing: "x", room: "x", timestamp: changes.timestamp },
      "changes",
      limits,
      "",
    );
    patch.timestamp = checked.timestamp;
    patch.timestampMs = checked.timestampMs;
  }
  if (changes.metadata !== undefined) {
    patch.metadata = changes.metadata === null ? null : checkMetadata(changes.metadata, "metadata", limits);
  }
  if (changes.pinned !== undefined) {
    if (typeof changes.pinned !== "boolean") throw invalidInput("pinned", "must be true or false");
    patch.pinned = changes.pinned;
  }
  return patch;
}
