import { PalaceError } from "../errors.js";
import { DrawerRegistry } from "./drawer-registry.js";
import { openDatabase } from "./open-database.js";
import type { PalaceConfig, PalacePaths } from "./palace-dir.js";
import { PgDatabase } from "./postgres/pg-database.js";
import { migratePostgres } from "./postgres/pg-schema.js";
import { redactUrl } from "./postgres/pg-sync-client.js";
import { migrate } from "./schema.js";
import type { SqlDatabase } from "./sql/sql-database.js";

/** The settings a PostgreSQL palace keeps for every server that opens it (in `meta`). */
const SHARED_CONFIG_KEY = "palace_config";
type SharedConfig = Pick<PalaceConfig, "name" | "embedding" | "collection" | "createdAt">;

/**
 * Opens the palace's records, migrated to the current schema: palace.sqlite in the palace
 * directory, or the PostgreSQL database at `postgresUrl`. Nothing else in the palace knows which.
 */
export function openStore(
  paths: PalacePaths,
  postgresUrl: string | undefined,
  busyTimeoutMs: number,
): SqlDatabase {
  if (postgresUrl === undefined) {
    const db = openDatabase(paths.sqlite, busyTimeoutMs);
    try {
      migrate(db, paths.sqlite, () => new DrawerRegistry(db).rebuildLexical());
    } catch (error) {
      db.close();
      throw error;
    }
    return db;
  }
  if (!/^postgres(ql)?:\/\//.test(postgresUrl)) {
    throw new PalaceError(
      "palace/invalid-input",
      `postgres: "${redactUrl(postgresUrl)}" is not a PostgreSQL URL; give one like postgres://user@host:5432/palace`,
    );
  }
  const db = new PgDatabase(postgresUrl, { lockTimeoutMs: busyTimeoutMs });
  try {
    migratePostgres(db, () => new DrawerRegistry(db).rebuildLexical());
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Ties a palace directory to the PostgreSQL palace it names: the first directory made for a
 * database records its settings there; every later one (another server's) takes them from there,
 * so all see one palace (one Chroma collection, one embedding). Returns the settings to use.
 */
export function shareConfig(db: SqlDatabase, config: PalaceConfig): PalaceConfig {
  return db
    .transaction(() => {
      const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(SHARED_CONFIG_KEY) as
        | { value: string }
        | undefined;
      if (row) return { ...config, ...(JSON.parse(row.value) as SharedConfig) };
      const shared: SharedConfig = {
        name: config.name,
        embedding: config.embedding,
        collection: config.collection,
        createdAt: config.createdAt,
      };
      db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)").run(
        SHARED_CONFIG_KEY,
        JSON.stringify(shared),
      );
      return config;
    })
    .immediate();
}

/** Refuses a palace.json whose collection is not the one its PostgreSQL palace records. */
export function checkSharedConfig(db: SqlDatabase, config: PalaceConfig, configFile: string): void {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(SHARED_CONFIG_KEY) as
    | { value: string }
    | undefined;
  if (!row) return;
  const shared = JSON.parse(row.value) as SharedConfig;
  if (shared.collection !== config.collection || shared.embedding !== config.embedding) {
    throw new PalaceError(
      "palace/conflict",
      `${configFile} names Chroma collection ${config.collection} (embedding ${config.embedding}), but the PostgreSQL palace at ${db.location} belongs to ${shared.collection} (embedding ${shared.embedding}); open it from a new directory to take its settings`,
    );
  }
}
