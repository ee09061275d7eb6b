import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { type OpenPalaceOptions, openPalace } from "../open-palace.js";
import type { Palace } from "../palace.js";

/** The `--palace` option every command takes, and where the palace is when it is not given. */
export const PALACE_OPTION = {
  palace: {
    type: "string",
    value: "DIR",
    help: "the palace directory (default: $ATRIUM_PALACE, else ~/.atrium/palace);\n$ATRIUM_CHROMA_URL: a running Chroma server to use instead of DIR/chroma;\n$ATRIUM_PALACE_POSTGRES: a PostgreSQL database (postgres://user@host/db) to keep\na new palace's records in instead of DIR/palace.sqlite, shared by every server\nthat opens it (password: $PGPASSWORD)",
  },
} as const;

/** `--json`, for every command whose output is data. */
export const JSON_OPTION = { json: { type: "boolean", help: "print it as JSON" } } as const;

/** `--palace`, else `ATRIUM_PALACE`, else `~/.atrium/palace`. */
export function palaceDir(values: { palace?: string }, env: Record<string, string | undefined>): string {
  const given = values.palace ?? (env.ATRIUM_PALACE?.trim() || undefined);
  return resolve(given ?? join(homedir(), ".atrium", "palace"));
}

/**
 * Where the palace's parts live, from the environment: `ATRIUM_CHROMA_URL` as its `chromaUrl`,
 * `ATRIUM_PALACE_POSTGRES` as its `postgresUrl`, each when set.
 */
export function storeOptions(env: Record<string, string | undefined>): {
  chromaUrl?: string;
  postgresUrl?: string;
} {
  const chromaUrl = env.ATRIUM_CHROMA_URL?.trim();
  const postgresUrl = env.ATRIUM_PALACE_POSTGRES?.trim();
  return { ...(chromaUrl ? { chromaUrl } : {}), ...(postgresUrl ? { postgresUrl } : {}) };
}

/**
 * Opens the palace `--palace` names (see `palaceDir`), runs `body` with it and closes it,
 * whatever `body` does.
 */
export async function withPalace<T>(
  values: { palace?: string },
  env: Record<string, string | undefined>,
  options: OpenPalaceOptions,
  body: (palace: Palace) => Promise<T>,
): Promise<T> {
  const palace = await openPalace(palaceDir(values, env), { ...storeOptions(env), ...options });
  const migration = palace.kg.migration;
  if (migration !== undefined && migration.facts + migration.entities > 0) {
    // Said once, when it happens: these facts are now visible only to who may read that wing.
    process.stderr.write(
      `atrium-palace: facts now belong to wings; the ${migration.facts} facts and ${migration.entities} entities this palace had were moved to wing "${migration.wing}"\n`,
    );
  }
  try {
    return await body(palace);
  } finally {
    await palace.close();
  }
}
