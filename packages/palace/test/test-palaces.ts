import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChromaServer, startChromaServer } from "@atrium/chroma";
import type { DrawerDraft } from "../src/drawers/drawer.js";
import { type OpenPalaceOptions, openPalace } from "../src/open-palace.js";
import type { Palace } from "../src/palace.js";

/**
 * For tests: one Chroma server per test file (palaces point at it with `chromaUrl`, each with its
 * own collection) and palaces in fresh temporary directories.
 */
export class TestPalaces {
  private server: ChromaServer | undefined;
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

  /** A new, empty palace on the shared server. */
  async open(options: OpenPalaceOptions = {}, dir?: string): Promise<Palace> {
    const palace = await openPalace(dir ?? (await this.dir()), {
      create: true,
      chromaUrl: await this.chromaUrl(),
      ...options,
    });
    this.palaces.push(palace);
    return palace;
  }

  async cleanup(): Promise<void> {
    for (const palace of this.palaces) await palace.close();
    await this.server?.stop();
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
