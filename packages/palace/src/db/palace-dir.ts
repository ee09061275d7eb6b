import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { rethrowIfFatal } from "@atrium/spec";
import { z } from "zod";
import { PalaceError } from "../errors.js";

/**
 * One palace is one directory: `palace.json` (settings), `palace.sqlite` (the registry, the
 * source of truth) and `chroma/` (the vector index, rebuildable from the registry).
 */
export interface PalacePaths {
  dir: string;
  config: string;
  sqlite: string;
  chroma: string;
}

export function palacePaths(dir: string): PalacePaths {
  const root = resolve(dir);
  return {
    dir: root,
    config: join(root, "palace.json"),
    sqlite: join(root, "palace.sqlite"),
    chroma: join(root, "chroma"),
  };
}

/**
 * A palace holds someone's memories: the files it creates (palace.json, palace.sqlite and its
 * -wal/-shm, exports) are readable by their owner only, its directories enterable by them only.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIRECTORY_MODE = 0o700;

/** palace.json's format; a newer one is refused instead of misread. */
export const PALACE_FORMAT_VERSION = 1;

const configSchema = z.looseObject({
  format: z.number().int().positive(),
  name: z.string().min(1),
  /** The `Embedding.id` the vectors were made with; `resolveEmbedding` turns it back into one. */
  embedding: z.string().min(1),
  /** The Chroma collection holding this palace's vectors (unique, so palaces can share a server). */
  collection: z.string().min(3),
  /** L0: who the user (or agent) is, the first thing a wake-up says. */
  identity: z.string().optional(),
  createdAt: z.string(),
  /**
   * A palace whose records live in PostgreSQL: the database's URL, without a password (give it
   * with `PGPASSWORD` or the URL passed when opening). Absent: palace.sqlite.
   */
  postgres: z.string().optional(),
});

/**
 * palace.json. Keys other modules add (a `rooms` config for the miners, ...) are kept as they
 * are when the core rewrites the file.
 */
export type PalaceConfig = z.infer<typeof configSchema>;

export async function readPalaceConfig(dir: string): Promise<PalaceConfig> {
  const paths = palacePaths(dir);
  let text: string;
  try {
    text = await readFile(paths.config, "utf8");
  } catch (error) {
    rethrowIfFatal(error);
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new PalaceError(
        "palace/not-found",
        `${paths.dir} is not a palace (no palace.json); create one with \`atrium-palace init ${dir}\` or initPalace()`,
      );
    }
    throw new PalaceError("palace/format", `Cannot read ${paths.config}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PalaceError(
      "palace/format",
      `${paths.config} is not valid JSON (${(error as Error).message}); restore it from a backup or export`,
      {
        cause: error,
      },
    );
  }
  const result = configSchema.safeParse(parsed);
  if (!result.success) {
    const issues = result.error.issues.map(
      (issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
    throw new PalaceError("palace/format", `${paths.config} is malformed: ${issues.join("; ")}`);
  }
  if (result.data.format > PALACE_FORMAT_VERSION) {
    throw new PalaceError(
      "palace/format",
      `${paths.config} has format ${result.data.format}, newer than this @atrium/palace reads (${PALACE_FORMAT_VERSION}); upgrade @atrium/palace`,
    );
  }
  return result.data;
}

/** Writes palace.json atomically (a temporary file renamed over it), so a crash never leaves half a file. */
export async function writePalaceConfig(dir: string, config: PalaceConfig): Promise<void> {
  const paths = palacePaths(dir);
  const temporary = `${paths.config}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  await rename(temporary, paths.config);
}

/**
 * Creates palace.json exclusively: when another process (or an earlier run) got there first,
 * returns false and leaves its file alone.
 */
export async function createPalaceConfig(dir: string, config: PalaceConfig): Promise<boolean> {
  const paths = palacePaths(dir);
  await mkdir(paths.dir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  await mkdir(paths.chroma, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  // Written whole to a private file, then hard-linked into place: `link` fails if palace.json
  // exists, and a concurrent opener never sees it created but still empty (as `wx` + write allows).
  const staged = `${paths.config}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(staged, `${JSON.stringify(config, null, 2)}\n`, { flag: "wx", mode: PRIVATE_FILE_MODE });
    await link(staged, paths.config);
    return true;
  } catch (error) {
    rethrowIfFatal(error);
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new PalaceError("palace/format", `Cannot create ${paths.config}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    await rm(staged, { force: true });
  }
}

/** A Chroma collection name for a new palace: its name, cleaned, and a random suffix. */
export function newCollectionName(name: string): string {
  const clean = name
    .replace(/[^a-zA-Z0-9._-]+/g, "-")
    .replace(/^[^a-zA-Z0-9]+|[^a-zA-Z0-9]+$/g, "")
    .slice(0, 40);
  return `palace-${clean || "drawers"}-${randomBytes(4).toString("hex")}`;
}

export function defaultPalaceName(dir: string): string {
  return basename(resolve(dir)) || "palace";
}
