import { reloadConfig } from "../core/maintenance.js";
import { palaceCore } from "../core/palace-core.js";
import type { DrawerRow } from "../db/drawer-row.js";
import { readPalaceConfig, writePalaceConfig } from "../db/palace-dir.js";
import type { Drawer } from "../drawers/drawer.js";
import { contentHash, drawerId } from "../drawers/drawer-id.js";
import { checkDraft } from "../drawers/validate-draft.js";
import { invalidInput } from "../errors.js";
import { KnowledgeGraph } from "../kg/index.js";
import type { Palace } from "../palace.js";
import { type ExportHeader, parseExportHeader } from "./export-header.js";
import type { DrawerHolding } from "./export-rows.js";
import { importLines } from "./import-lines.js";

export interface ImportReport {
  /** Drawers filed; `skipped` were already in the palace (same id). */
  drawers: number;
  skipped: number;
  sources: number;
  knowledgeGraphRows: number;
  /** Explicit tunnels added (ones already there are skipped). */
  tunnels: number;
}

/**
 * Reads a JSONL export into an open palace (normally a new, empty one): drawers keep their ids,
 * times, pins and access counts; sources, the knowledge graph and tunnels come along; vectors are made
 * with this palace's embedding. The whole file is checked first (an error names the line), then
 * written in one transaction, so a bad file changes nothing.
 */
export async function importPalace(palace: Palace, file: string): Promise<ImportReport> {
  const drawers: Drawer[] = [];
  const holdings = new Map<string, DrawerHolding>();
  const sources: {
    key: string;
    contentHash: string;
    drawerCount: number;
    minedAt: string;
    origin?: string;
  }[] = [];
  const graph: unknown[] = [];
  const tunnels: { row: unknown; where: string }[] = [];
  let header: ExportHeader | undefined;
  const readIds = new Set<string>();
  for await (const { line, text } of importLines(file, palace.limits.maxImportLineBytes)) {
    if (text.trim() === "") continue;
    const where = `${file}:${line}`;
    let row: { kind?: unknown } & Record<string, unknown>;
    try {
      row = JSON.parse(text);
    } catch (error) {
      throw invalidInput(where, `is not JSON (${(error as Error).message}); is this a palace export?`);
    }
    if (header === undefined) {
      header = parseExportHeader(row, where);
      continue;
    }
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      throw invalidInput(where, "must be a JSON object with a kind; is this a palace export?");
    }
    if (row.kind === "drawer") {
      const { alsoHeldBy, filedDirectly, ...drawer } = row;
      drawers.push(checkDrawer(drawer, where, palace));
      readIds.add(drawer.id as string);
      const holding = checkHolding(alsoHeldBy, filedDirectly, where);
      if (holding) holdings.set(drawer.id as string, holding);
    } else if (row.kind === "holders") {
      // More holders of a drawer read above (see `holderRows` in export-palace.ts).
      const { id, alsoHeldBy } = row;
      const more = checkHolding(alsoHeldBy, undefined, where);
      const holding =
        typeof id === "string" ? (holdings.get(id) ?? (readIds.has(id) ? {} : undefined)) : undefined;
      if (holding === undefined || more?.alsoHeldBy === undefined) {
        throw invalidInput(
          where,
          "a holders row needs the id of a drawer on an earlier line and its alsoHeldBy list",
        );
      }
      holding.alsoHeldBy = [...(holding.alsoHeldBy ?? []), ...more.alsoHeldBy];
      holdings.set(id as string, holding);
    } else if (row.kind === "source") sources.push(checkSource(row, where));
    else if (typeof row.kind === "string" && row.kind.startsWith("kg-")) graph.push(row);
    else if (row.kind === "tunnel") tunnels.push({ row, where });
    else throw invalidInput(where, `has an unknown kind ${JSON.stringify(row.kind)}`);
  }
  if (!header) throw invalidInput(file, "is empty; expected a palace export");
  if (header.sourceKinds !== true) giveSourceKeysKinds(drawers, holdings, sources);

  const report: ImportReport = {
    drawers: 0,
    skipped: 0,
    sources: sources.length,
    knowledgeGraphRows: graph.length,
    tunnels: 0,
  };
  const core = palaceCore(palace);
  const { db, registry } = core;
  const now = new Date().toISOString();
  await core.exclusive(async () => {
    const checked = drawers.map((drawer, at) => checkDraft(drawer, `drawers[${at}]`, palace.limits, now));
    db.transaction(() => {
      checked.forEach((draft, at) => {
        const drawer = drawers[at] as Drawer;
        if (registry.exists(drawer.id)) {
          report.skipped++;
          return;
        }
        registry.insert(draft, drawer.id, drawer.filedAt, {
          accessCount: drawer.accessCount,
          pinned: drawer.pinned,
          ...(drawer.lastAccessed === undefined ? {} : { lastAccessed: drawer.lastAccessed }),
        });
        report.drawers++;
        const holding = holdings.get(drawer.id);
        if (holding) {
          const row = registry.byId(drawer.id) as DrawerRow;
          for (const holder of holding.alsoHeldBy ?? [])
            registry.hold(row, holder.source, holder.position ?? undefined);
          if (holding.filedDirectly) registry.hold(row, undefined, undefined);
        }
      });
      registry.flushLexical();
      const upsertSource = db.prepare(
        "INSERT INTO sources (key, content_hash, drawer_count, mined_at, origin) VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET content_hash = excluded.content_hash, drawer_count = excluded.drawer_count, mined_at = excluded.mined_at, origin = excluded.origin",
      );
      for (const source of sources)
        upsertSource.run(
          source.key,
          source.contentHash,
          source.drawerCount,
          source.minedAt,
          source.origin ?? null,
        );
      if (graph.length > 0) new KnowledgeGraph(db).import(graph);
      report.tunnels = palace.tunnels.import(
        tunnels.map((tunnel) => tunnel.row),
        (index) => tunnels[index]?.where ?? `tunnels[${index}]`,
      );
    }).immediate();
    // The palace's own settings win; the export's fill only what the palace does not have yet.
    const config = await readPalaceConfig(palace.dir);
    const merged = { ...config };
    if (config.rooms === undefined && header?.settings?.rooms !== undefined)
      merged.rooms = header.settings.rooms;
    if (config.identity === undefined && header?.identity !== undefined) merged.identity = header.identity;
    if (JSON.stringify(merged) !== JSON.stringify(config)) await writePalaceConfig(palace.dir, merged);
    await reloadConfig(core);
    await core.applyVectors();
  });
  return report;
}

function checkDrawer(row: Record<string, unknown>, where: string, palace: Palace): Drawer {
  const { kind: _kind, ...drawer } = row as unknown as { kind: string } & Drawer;
  for (const key of ["id", "filedAt", "contentHash"] as const) {
    if (typeof drawer[key] !== "string") throw invalidInput(`${where}.${key}`, "must be text");
  }
  checkDraft(drawer, where, palace.limits, drawer.filedAt);
  if (drawerId(drawer) !== drawer.id || contentHash(drawer.content) !== drawer.contentHash) {
    throw invalidInput(
      where,
      `drawer ${drawer.id} does not match its content (its id or contentHash was edited); restore the line from the original export`,
    );
  }
  if (typeof drawer.pinned !== "boolean") throw invalidInput(`${where}.pinned`, "must be true or false");
  if (!Number.isInteger(drawer.accessCount) || drawer.accessCount < 0) {
    throw invalidInput(`${where}.accessCount`, "must be a non-negative integer");
  }
  return drawer;
}

function checkHolding(alsoHeldBy: unknown, filedDirectly: unknown, where: string): DrawerHolding | undefined {
  if (filedDirectly !== undefined && filedDirectly !== true)
    throw invalidInput(`${where}.filedDirectly`, "must be true when present");
  if (alsoHeldBy !== undefined) {
    const valid =
      Array.isArray(alsoHeldBy) &&
      alsoHeldBy.every(
        (holder) =>
          typeof holder?.source === "string" &&
          holder.source !== "" &&
          (holder.position === null || (Number.isInteger(holder.position) && holder.position >= 0)),
      );
    if (!valid)
      throw invalidInput(
        `${where}.alsoHeldBy`,
        "must be a list of { source, position } (position an integer or null)",
      );
  }
  if (alsoHeldBy === undefined && filedDirectly === undefined) return undefined;
  return {
    ...(alsoHeldBy === undefined ? {} : { alsoHeldBy: alsoHeldBy as DrawerHolding["alsoHeldBy"] }),
    ...(filedDirectly === true ? { filedDirectly: true } : {}),
  };
}

function checkSource(row: Record<string, unknown>, where: string) {
  const { key, contentHash: hash, drawerCount, minedAt, origin } = row;
  if (
    typeof key !== "string" ||
    typeof hash !== "string" ||
    typeof minedAt !== "string" ||
    !Number.isInteger(drawerCount)
  ) {
    throw invalidInput(where, "a source needs key, contentHash, drawerCount and minedAt");
  }
  if (origin !== undefined && typeof origin !== "string")
    throw invalidInput(`${where}.origin`, "must be text when present");
  return {
    key,
    contentHash: hash,
    drawerCount: drawerCount as number,
    minedAt,
    ...(origin === undefined ? {} : { origin }),
  };
}

/**
 * An export from before source keys carried their kind (`<wing>/<id>`): each mined source gets
 * the kind the v4 schema migration gives it (its origin says, else a conversation when its
 * drawers are in the "conversations" hall), renamed wherever the export stores it.
 */
function giveSourceKeysKinds(
  drawers: Drawer[],
  holdings: Map<string, DrawerHolding>,
  sources: { key: string; origin?: string }[],
): void {
  const conversations = new Set(
    drawers.filter((drawer) => drawer.hall === "conversations").map((drawer) => drawer.source),
  );
  const renamed = new Map<string, string>();
  for (const source of sources) {
    const kind = source.origin?.startsWith("project:")
      ? "project"
      : source.origin?.startsWith("convos:") || conversations.has(source.key)
        ? "convo"
        : "project";
    renamed.set(source.key, `${kind}:${source.key}`);
    source.key = `${kind}:${source.key}`;
  }
  for (const drawer of drawers) {
    const key = drawer.source === undefined ? undefined : renamed.get(drawer.source);
    if (key !== undefined) drawer.source = key;
  }
  for (const holding of holdings.values()) {
    for (const holder of holding.alsoHeldBy ?? [])
      holder.source = renamed.get(holder.source) ?? holder.source;
  }
}
