import { resolveEmbedding } from "@atrium/chroma";
import type { Embedding } from "@atrium/spec";
import { checkSharedConfig, openStore, shareConfig } from "./db/open-store.js";
import {
  createPalaceConfig,
  defaultPalaceName,
  newCollectionName,
  PALACE_FORMAT_VERSION,
  type PalaceConfig,
  palacePaths,
  readPalaceConfig,
} from "./db/palace-dir.js";
import { redactUrl } from "./db/postgres/pg-sync-client.js";
import { invalidInput, PalaceError } from "./errors.js";
import { createKnowledgeGraphTables } from "./kg/index.js";
import { type PalaceLimits, resolvePalaceLimits } from "./limits.js";
import { Palace } from "./palace.js";
import { createTunnelTables } from "./tunnels/tunnel-schema.js";
import { ChromaConnection } from "./vectors/chroma-connection.js";

export interface InitPalaceOptions {
  /** Shown in status and used in the Chroma collection name; default: the directory's name. */
  name?: string;
  /** Default: the offline hashing embedding. Its id is recorded in palace.json. */
  embedding?: Embedding;
  /** L0: who the user (or agent) is. */
  identity?: string;
  /**
   * Keep the palace's records in this PostgreSQL database (postgres://user@host:5432/db) instead
   * of palace.sqlite, so several servers share one palace. Recorded in palace.json without its
   * password; a later open may leave it out.
   */
  postgresUrl?: string;
}

export interface OpenPalaceOptions extends InitPalaceOptions {
  /** Must be the embedding the palace was built with (default: the one palace.json names). */
  embedding?: Embedding;
  /** Use this running Chroma server instead of the palace's own (`<dir>/chroma`). */
  chromaUrl?: string;
  /** Overrides of `DEFAULT_PALACE_LIMITS`. */
  limits?: Partial<PalaceLimits>;
  /** Create the palace when the directory is not one yet (with `name`, `embedding`, `identity`). */
  create?: boolean;
  /** How long to wait for the palace's own Chroma server to start. */
  chromaStartTimeoutMs?: number;
  /**
   * Open with an embedding other than the recorded one; only `repair({ reembed: true })` may then
   * write. Used by `repairPalace`.
   */
  allowEmbeddingChange?: boolean;
}

/**
 * Creates a palace in `dir`: palace.json, palace.sqlite with its schema, and the chroma/ data
 * dir. Refuses a directory that already is one.
 */
export async function initPalace(dir: string, options: InitPalaceOptions = {}): Promise<PalaceConfig> {
  let config = newConfig(dir, options);
  const paths = palacePaths(dir);
  const limits = resolvePalaceLimits();
  if (options.postgresUrl !== undefined) {
    // Another server may have made this palace already: take its settings.
    const db = openStore(paths, options.postgresUrl, limits.busyTimeoutMs);
    try {
      config = { ...shareConfig(db, config), postgres: redactUrl(options.postgresUrl) };
      createKnowledgeGraphTables(db);
      createTunnelTables(db);
    } finally {
      db.close();
    }
  }
  if (!(await createPalaceConfig(dir, config))) {
    throw new PalaceError(
      "palace/conflict",
      `${palacePaths(dir).dir} is already a palace (it has palace.json); open it with openPalace() or \`atrium-palace status ${dir}\``,
    );
  }
  if (options.postgresUrl !== undefined) return config;
  const db = openStore(paths, undefined, limits.busyTimeoutMs);
  try {
    createKnowledgeGraphTables(db);
    createTunnelTables(db);
  } finally {
    db.close();
  }
  return config;
}

function newConfig(dir: string, options: InitPalaceOptions): PalaceConfig {
  const name = options.name ?? defaultPalaceName(dir);
  const embedding = options.embedding ?? resolveEmbedding("hashing");
  return {
    format: PALACE_FORMAT_VERSION,
    name,
    embedding: embedding.id,
    collection: newCollectionName(name),
    ...(options.identity === undefined ? {} : { identity: options.identity }),
    createdAt: new Date().toISOString(),
  };
}

/**
 * Opens the palace in `dir` (or creates it, with `create: true`): the registry, the vector index
 * (the palace's own Chroma server, started or reused, or `chromaUrl`), and catches the vectors
 * up with any writes a crash left unapplied.
 */
export async function openPalace(dir: string, options: OpenPalaceOptions = {}): Promise<Palace> {
  const limits = resolvePalaceLimits(options.limits);
  if (options.identity !== undefined && options.identity.length > limits.maxIdentityChars) {
    throw invalidInput("identity", `has more than maxIdentityChars (${limits.maxIdentityChars}) characters`);
  }
  let config: PalaceConfig;
  try {
    config = await readPalaceConfig(dir);
  } catch (error) {
    if (!(options.create && error instanceof PalaceError && error.palaceCode === "palace/not-found"))
      throw error;
    try {
      await initPalace(dir, options);
    } catch (initError) {
      // Another process created it first: open theirs.
      if (!(initError instanceof PalaceError && initError.palaceCode === "palace/conflict")) throw initError;
    }
    config = await readPalaceConfig(dir);
  }
  const embedding = options.embedding ?? resolveEmbedding(config.embedding);
  if (embedding.id !== config.embedding && !options.allowEmbeddingChange) {
    throw new PalaceError(
      "palace/conflict",
      `The palace in ${palacePaths(dir).dir} was built with embedding ${config.embedding}, not ${embedding.id}; open it with the same one (--embedding ${config.embedding}), or switch with \`atrium-palace repair --reembed --embedding ${embedding.id}\``,
    );
  }
  const paths = palacePaths(dir);
  const db = openStore(paths, postgresUrlOf(config, options), limits.busyTimeoutMs);
  let connection: ChromaConnection | undefined;
  try {
    if (db.dialect.name === "postgres") checkSharedConfig(db, config, paths.config);
    connection = await ChromaConnection.open({
      url: options.chromaUrl,
      dataDir: paths.chroma,
      startTimeoutMs: options.chromaStartTimeoutMs,
    });
    const palace = new Palace(
      paths,
      config,
      embedding,
      limits,
      db,
      connection,
      embedding.id !== config.embedding,
    );
    if (!palace.embeddingChanged) await palace.syncVectors();
    return palace;
  } catch (error) {
    await connection?.close();
    db.close();
    throw error;
  }
}

/** The PostgreSQL URL to open: the caller's (it may carry the password), else palace.json's. */
function postgresUrlOf(config: PalaceConfig, options: OpenPalaceOptions): string | undefined {
  if (options.postgresUrl !== undefined && config.postgres === undefined) {
    throw new PalaceError(
      "palace/conflict",
      "This palace keeps its records in palace.sqlite, not PostgreSQL; open it without a PostgreSQL URL (move it with `atrium-palace export` and `import`)",
    );
  }
  return options.postgresUrl ?? config.postgres;
}
