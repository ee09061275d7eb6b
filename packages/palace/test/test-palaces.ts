import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import type { DrawerDraft } from "../src/drawers/drawer.js";
import { type OpenPalaceOptions, openPalace } from "../src/open-palace.js";
import type { Palace } from "../src/palace.js";
import { freshDatabase, type RunningPostgres, startPostgres } from "../test-support/postgres-server.js";

/**
 * `ATRIUM_PALACE_STORE=postgres` runs a suite's palaces on PostgreSQL (vitest.postgres.config.ts
 * sets it): the same tests, the other store.
 */
export const TEST_STORE: "sqlite" | "postgres" =
  process.env.ATRIUM_PALACE_STORE === "postgres" ? "postgres" : "sqlite";

/**
 * For tests: one Chroma server per test file (palaces point at it with `chromaUrl`, each with its
 * own collection) and palaces in fresh temporary directories.
 */
export class TestPalaces {
  private server: ChromaServer | undefined;
  private postgres: RunningPostgres | undefined;
  private readonly dirs: string[] = [];
  private readonly palaces: Palace[] = [];

  async dir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "atrium-palace-test-"));
    this.dirs.push(dir);
    return dir;
  }

  async chromaUrl(): Promise<string> {
    this.server ??= await startChromaServer({ path: join(await this.dir(), "shared-chroma") });
    return this.server.url;
  }

  /** A new database on this file's PostgreSQL server (started on first use). */
  async postgresUrl(): Promise<string> {
    this.postgres ??= await startPostgres();
    return freshDatabase(this.postgres);
  }

  /**
   * A new, empty palace on the shared server (or `dir`'s palace, reopened). On the PostgreSQL
   * store, each new palace gets a database of its own.
   */
  async open(options: OpenPalaceOptions = {}, dir?: string): Promise<Palace> {
    const target = dir ?? (await this.dir());
    const fresh = TEST_STORE === "postgres" && !existsSync(join(target, "palace.json"));
    const palace = await openPalace(target, {
      create: true,
      chromaUrl: await this.chromaUrl(),
      ...(fresh ? { postgresUrl: await this.postgresUrl() } : {}),
      ...options,
    });
    this.palaces.push(palace);
    return palace;
  }

  async cleanup(): Promise<void> {
    for (const palace of this.palaces) await palace.close();
    await this.server?.stop();
    await this.postgres?.stop();
    for (const dir of this.dirs) await rm(dir, { recursive: true, force: true });
  }
}

/** A short conversation as drafts: one drawer per turn, with turn ids and times. */
export function conversationDrafts(
  wing: string,
  source: string,
  turns: [speaker: string, text: string][],
): DrawerDraft[] {
  return turns.map(([speaker, content], position) => ({
    content,
    wing,
    room: "conversation",
    hall: "conversations",
    source,
    position,
    speaker,
    turnId: `${source}:${position + 1}`,
    sessionId: source,
    timestamp: new Date(Date.UTC(2024, 0, 1 + position)).toISOString(),
  }));
}
