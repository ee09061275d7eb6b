import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { palaceCore } from "../core/palace-core.js";
import { DRAWER_COLUMNS, type DrawerRow, rowToDrawer } from "../db/drawer-row.js";
import { PRIVATE_FILE_MODE, readPalaceConfig } from "../db/palace-dir.js";
import type { Palace } from "../palace.js";
import { PalaceView } from "../view/palace-view.js";
import { type DrawerHolding, EXPORT_FORMAT_VERSION, type PalaceExportRow } from "./export-rows.js";

const PAGE = 1_000;

/** Keys of palace.json that belong to this palace's storage, not to what it remembers. */
const STORAGE_KEYS = new Set([
  "format",
  "name",
  "embedding",
  "collection",
  "identity",
  "createdAt",
  "postgres",
]);

export interface ExportReport {
  drawers: number;
  sources: number;
  knowledgeGraphRows: number;
  tunnels: number;
}

/**
 * Every row of a palace, losslessly: drawers with all their fields (pins and access counts too),
 * mined sources, the knowledge graph, explicit tunnels. Vectors are not exported: they are made
 * again on import. Given a `PalaceView`, only what its grants read: its drawers, the sources
 * whose every drawer it reads, its wings' facts, tunnels with both ends readable; the owner's
 * identity text and settings only for an admin.
 */
export async function* exportRows(
  target: Palace | PalaceView,
): AsyncGenerator<PalaceExportRow | { kind: string }> {
  const palace = target instanceof PalaceView ? target.palace : target;
  const access = target instanceof PalaceView && !target.access.isAdmin ? target.access : undefined;
  // An export is a point where the palace should be whole: vectors a mining run deferred go in first.
  await palace.flush();
  const { db } = palaceCore(palace);
  const config = await readPalaceConfig(palace.dir);
  const settings = Object.fromEntries(Object.entries(config).filter(([key]) => !STORAGE_KEYS.has(key)));
  const owner = access === undefined;
  yield {
    kind: "palace",
    format: EXPORT_FORMAT_VERSION,
    name: config.name,
    embedding: config.embedding,
    ...(config.identity === undefined || !owner ? {} : { identity: config.identity }),
    exportedAt: new Date().toISOString(),
    ...(Object.keys(settings).length > 0 && owner ? { settings } : {}),
    sourceKinds: true,
  };
  const confined = access?.readSql("d");
  const page = db.prepare(
    `SELECT ${DRAWER_COLUMNS} FROM drawers d WHERE d.rowid > ?${confined ? ` AND ${confined.sql}` : ""} ORDER BY d.rowid LIMIT ?`,
  );
  for (let after = 0; ; ) {
    const rows = page.all(after, ...(confined?.params ?? []), PAGE) as DrawerRow[];
    for (const row of rows) {
      const { alsoHeldBy, ...held } = holding(palace, row);
      const inline = alsoHeldBy !== undefined && JSON.stringify(alsoHeldBy).length <= INLINE_HOLDERS_CHARS;
      yield { kind: "drawer", ...rowToDrawer(row), ...(inline ? { alsoHeldBy } : {}), ...held };
      if (alsoHeldBy !== undefined && !inline)
        yield* holderRows(row.id, alsoHeldBy, palace.limits.maxImportLineBytes);
    }
    if (rows.length < PAGE) break;
    after = (rows[rows.length - 1] as DrawerRow).rowid;
  }
  // A view exports a mined source only when it reads every drawer the source holds.
  const sourcesSql = confined
    ? `SELECT key, content_hash, drawer_count, mined_at, origin FROM sources s
       WHERE EXISTS (SELECT 1 FROM drawer_sources l WHERE l.source_key = s.key)
         AND NOT EXISTS (SELECT 1 FROM drawer_sources l JOIN drawers d ON d.rowid = l.drawer_rowid
                         WHERE l.source_key = s.key AND NOT ${confined.sql})
       ORDER BY key`
    : "SELECT key, content_hash, drawer_count, mined_at, origin FROM sources ORDER BY key";
  const sources = db.prepare(sourcesSql).all(...(confined?.params ?? [])) as {
    key: string;
    content_hash: string;
    drawer_count: number;
    mined_at: string;
    origin: string | null;
  }[];
  for (const source of sources) {
    yield {
      kind: "source",
      key: source.key,
      contentHash: source.content_hash,
      drawerCount: source.drawer_count,
      minedAt: source.mined_at,
      ...(source.origin === null ? {} : { origin: source.origin }),
    };
  }
  yield* (access ? palace.kg.scoped(access) : palace.kg).export();
  yield* (access ? palace.tunnels.scoped(access) : palace.tunnels).export();
}

/**
 * A drawer's other holders go on its own line while short (within the room the line limit keeps
 * beside a drawer's text, see `EXPORT_LINE_OVERHEAD_BYTES`). A drawer many sources hold (one
 * license header in thousands of files) would make that line longer than an import reads, so its
 * holders follow in `holders` rows, each well within `maxImportLineBytes`.
 */
const INLINE_HOLDERS_CHARS = 400;

function* holderRows(
  id: string,
  holders: NonNullable<DrawerHolding["alsoHeldBy"]>,
  maxLineBytes: number,
): Generator<{ kind: "holders"; id: string; alsoHeldBy: NonNullable<DrawerHolding["alsoHeldBy"]> }> {
  const budget = Math.max(4_096, Math.floor(maxLineBytes / 2));
  let chunk: NonNullable<DrawerHolding["alsoHeldBy"]> = [];
  let bytes = 0;
  for (const holder of holders) {
    const size = Buffer.byteLength(JSON.stringify(holder)) + 1;
    if (chunk.length > 0 && bytes + size > budget) {
      yield { kind: "holders", id, alsoHeldBy: chunk };
      chunk = [];
      bytes = 0;
    }
    chunk.push(holder);
    bytes += size;
  }
  if (chunk.length > 0) yield { kind: "holders", id, alsoHeldBy: chunk };
}

/** The drawer's holders other than its own source, so an import keeps shared drawers shared. */
function holding(palace: Palace, row: DrawerRow): DrawerHolding {
  const { registry } = palaceCore(palace);
  const alsoHeldBy = registry.holders(row.rowid).filter((holder) => holder.source !== row.source);
  return {
    ...(alsoHeldBy.length > 0 ? { alsoHeldBy } : {}),
    ...(row.source !== null && registry.filedDirectly(row.rowid) ? { filedDirectly: true as const } : {}),
  };
}

/** Writes `exportRows` to `file` as JSONL (one JSON object per line). */
export async function exportPalace(palace: Palace | PalaceView, file: string): Promise<ExportReport> {
  const out = createWriteStream(file, { encoding: "utf8", mode: PRIVATE_FILE_MODE });
  const report: ExportReport = { drawers: 0, sources: 0, knowledgeGraphRows: 0, tunnels: 0 };
  try {
    for await (const row of exportRows(palace)) {
      if (row.kind === "drawer") report.drawers++;
      else if (row.kind === "source") report.sources++;
      else if (row.kind.startsWith("kg-")) report.knowledgeGraphRows++;
      else if (row.kind === "tunnel") report.tunnels++;
      if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, "drain");
    }
  } finally {
    out.end();
    await once(out, "close");
  }
  return report;
}
