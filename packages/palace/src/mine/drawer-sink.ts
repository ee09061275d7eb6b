import type { DrawerDraft } from "../drawers/drawer.js";

/**
 * The only way a mining run writes to a palace. The core's `Palace` implements it; tests use a
 * Map-backed sink that honours the same contract. Each source is replaced in one atomic step,
 * which is what makes a mining run resumable after `kill -9`: a re-run skips every source whose
 * recorded hash matches and redoes the one that was cut short.
 */

/** What the palace remembers about one mined source. */
export interface SourceRecord {
  key: string;
  contentHash: string;
  drawerCount: number;
  minedAt: string;
}

export interface ReplaceSourceResult {
  added: number;
  kept: number;
  removed: number;
}

export interface DrawerSink {
  /** The record of a mined source (a file path relative to the mined root, or a conversation id), if any. */
  getSource(key: string): SourceRecord | undefined;
  /** Atomically: file `drafts` as the whole content of `key` (drawers no longer in it are removed), record
   *  `contentHash`. One transaction: a kill during it leaves the previous state. */
  replaceSource(key: string, contentHash: string, drafts: DrawerDraft[]): Promise<ReplaceSourceResult>;
}
