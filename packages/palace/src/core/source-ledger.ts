import type { DrawerChanges } from "../db/drawer-registry.js";
import type { DrawerRow } from "../db/drawer-row.js";
import type { DrawerDraft } from "../drawers/drawer.js";
import { drawerId } from "../drawers/drawer-id.js";
import type { CheckedDraft } from "../drawers/validate-draft.js";
import { invalidInput } from "../errors.js";
import type {
  RemoveSourceResult,
  ReplaceSourceOptions,
  ReplaceSourceResult,
  SourceRecord,
} from "../mining/drawer-sink.js";
import { checkDrafts } from "./drawer-crud.js";
import type { PalaceCore } from "./palace-core.js";

// The miners' source ledger: each mined source's key, hash and drawers, replaced or removed whole.

export function getSource(core: PalaceCore, key: string): SourceRecord | undefined {
  core.ensureOpen();
  const row = core.db
    .prepare("SELECT key, content_hash, drawer_count, mined_at, origin FROM sources WHERE key = ?")
    .get(key) as SourceDbRow | undefined;
  return row && sourceRecord(row);
}

/** Every mined source whose key starts with `prefix`, by key. */
export function listSources(core: PalaceCore, prefix: string): SourceRecord[] {
  core.ensureOpen();
  if (typeof prefix !== "string") throw invalidInput("prefix", 'must be text ("" lists every source)');
  const rows = core.db
    .prepare(
      "SELECT key, content_hash, drawer_count, mined_at, origin FROM sources WHERE substr(key, 1, length(?)) = ? ORDER BY key",
    )
    .all(prefix, prefix) as SourceDbRow[];
  return rows.map(sourceRecord);
}

/**
 * Files `drafts` as the whole content of source `key` in one transaction: drawers the source
 * no longer holds leave the palace unless another source holds them too (or they were filed
 * directly), kept ones are moved if their room (or other fields) changed, and the source's hash
 * and `origin` are recorded. A draft's `source` defaults to `key`. A drawer whose text another
 * source already filed in the same wing stays that source's own, is held by this one too, and
 * counts as kept. With `deferVectors`, the vectors wait for `flush` (or the next write, search,
 * duplicate check, status, export or close, which flush first).
 */
export async function replaceSource(
  core: PalaceCore,
  key: string,
  hash: string,
  drafts: DrawerDraft[],
  origin: string | undefined,
  options: ReplaceSourceOptions,
): Promise<ReplaceSourceResult> {
  core.ensureOpen();
  if (typeof key !== "string" || key === "") throw invalidInput("key", "must be non-empty text");
  if (typeof hash !== "string" || hash === "") throw invalidInput("contentHash", "must be non-empty text");
  if (origin !== undefined && (typeof origin !== "string" || origin === ""))
    throw invalidInput("origin", "must be non-empty text when given");
  drafts.forEach((draft, at) => {
    if (draft.source !== undefined && draft.source !== key) {
      throw invalidInput(
        `drafts[${at}].source`,
        `is ${JSON.stringify(draft.source)}, but the source being replaced is ${JSON.stringify(key)}`,
      );
    }
  });
  const checked = checkDrafts(
    drafts.map((draft) => ({ ...draft, source: key })),
    "drafts",
    core.limits,
  );
  const { db, registry } = core;
  return core.exclusive(async () => {
    const filedAt = new Date().toISOString();
    const result = db
      .transaction(() => {
        const before = new Set(registry.heldBy(key));
        const wanted = new Set<string>();
        const counts: ReplaceSourceResult = { added: 0, kept: 0, removed: 0 };
        checked.forEach((draft, at) => {
          const id = drawerId(draft);
          if (wanted.has(id)) return;
          wanted.add(id);
          const row = registry.byId(id);
          if (!row) {
            registry.insert(draft, id, filedAt);
            counts.added++;
            return;
          }
          counts.kept++;
          before.delete(row.rowid);
          registry.hold(row, key, draft.position);
          if (row.source === key) {
            registry.update(row, changedFields(row, draft, drafts[at]?.timestamp !== undefined));
          }
        });
        for (const row of registry.byRowids([...before])) {
          if (registry.release(row, key)) counts.removed++;
        }
        db.prepare(
          "INSERT INTO sources (key, content_hash, drawer_count, mined_at, origin) VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET content_hash = excluded.content_hash, drawer_count = excluded.drawer_count, mined_at = excluded.mined_at, origin = COALESCE(excluded.origin, sources.origin)",
        ).run(key, hash, wanted.size, filedAt, origin ?? null);
        registry.flushLexical();
        return counts;
      })
      .immediate();
    if (options.deferVectors === true) core.vectorsDeferred = true;
    else await core.applyVectors();
    return result;
  });
}

/**
 * Forgets mined source `key` in one transaction: its drawers leave the palace unless another
 * source holds them too (or they were filed directly; those move to that holder).
 */
export async function removeSource(core: PalaceCore, key: string): Promise<RemoveSourceResult> {
  core.ensureOpen();
  if (typeof key !== "string" || key === "") throw invalidInput("key", "must be non-empty text");
  const { db, registry } = core;
  return core.exclusive(async () => {
    const result = db
      .transaction(() => {
        const found = db.prepare("DELETE FROM sources WHERE key = ?").run(key).changes > 0;
        const counts: RemoveSourceResult = { found, removed: 0, kept: 0 };
        for (const row of registry.byRowids(registry.heldBy(key))) {
          if (registry.release(row, key)) counts.removed++;
          else counts.kept++;
        }
        registry.flushLexical();
        return counts;
      })
      .immediate();
    if (result.removed + result.kept > 0) await core.applyVectors();
    return result;
  });
}

interface SourceDbRow {
  key: string;
  content_hash: string;
  drawer_count: number;
  mined_at: string;
  origin: string | null;
}

function sourceRecord(row: SourceDbRow): SourceRecord {
  return {
    key: row.key,
    contentHash: row.content_hash,
    drawerCount: row.drawer_count,
    minedAt: row.mined_at,
    ...(row.origin === null ? {} : { origin: row.origin }),
  };
}

/** The fields of a re-mined draft that differ from its stored row (same id, so same content). */
function changedFields(row: DrawerRow, draft: CheckedDraft, timed: boolean): DrawerChanges {
  const changes: DrawerChanges = {};
  if (row.room !== draft.room) changes.room = draft.room;
  if (row.hall !== draft.hall) changes.hall = draft.hall;
  if (row.position !== (draft.position ?? null)) changes.position = draft.position ?? null;
  if (row.speaker !== (draft.speaker ?? null)) changes.speaker = draft.speaker ?? null;
  if (row.session_id !== (draft.sessionId ?? null)) changes.sessionId = draft.sessionId ?? null;
  // A draft without a time was stamped "now": that is no reason to move the stored time.
  if (timed && row.timestamp_ms !== draft.timestampMs) {
    changes.timestamp = draft.timestamp;
    changes.timestampMs = draft.timestampMs;
  }
  const metadata = draft.metadata === undefined ? null : JSON.stringify(draft.metadata);
  if (row.metadata !== metadata) changes.metadata = draft.metadata ?? null;
  return changes;
}
