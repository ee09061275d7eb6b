import type { DrawerDraft } from "../drawers/drawer.js";

/**
 * The only way a mining run writes to a palace. The core's `Palace` implements it; tests use a
 * Map-backed sink that honours the same contract. Each source is replaced in one atomic step,
 * which is what makes a mining run resumable after `kill -9`: a re-run skips every source whose
 * recorded hash matches and redoes the one that was cut short.
 *
 * Drawer ids are content-derived, so several sources can hold one drawer (two files with the same
 * license header). A drawer leaves the palace only when no source holds it any more and it was not
 * filed directly; until then it counts as kept.
 */

/** What the palace remembers about one mined source. */
export interface SourceRecord {
  key: string;
  contentHash: string;
  drawerCount: number;
  minedAt: string;
  /** Where it was mined from (`project:<root>`, `convos:<export file>`), when the miner said. */
  origin?: string;
}

export interface ReplaceSourceResult {
  /** Drawers filed new. */
  added: number;
  /** Drawers of the source that were already in the palace (this or another source holds them). */
  kept: number;
  /** Drawers the source no longer holds that left the palace (no other holder). */
  removed: number;
}

export interface RemoveSourceResult {
  /** False when no source had this key (nothing changed). */
  found: boolean;
  /** Drawers that left the palace with it. */
  removed: number;
  /** Its drawers that stay because another source holds them too (or they were filed directly). */
  kept: number;
}

/** How `replaceSource` files a source. */
export interface ReplaceSourceOptions {
  /**
   * Leave the source's vectors for the next `flush` (or any later write, search or close)
   * instead of applying them now: a mining run files many small sources, and one vector-index
   * round trip per source is what made it slow. The registry write is as atomic as ever; the
   * vectors wait in the write log, which a crash replays on the next open.
   */
  deferVectors?: boolean;
}

export interface DrawerSink {
  /**
   * The most drafts one `replaceSource` call accepts; a mining run files a longer source in
   * parts (see `partKey`). Omitted: no limit. The palace's `limits` carries it.
   */
  readonly limits?: { readonly maxBatchDrafts: number };
  /** The record of a mined source (a file path relative to the mined root, or a conversation id), if any. */
  getSource(key: string): SourceRecord | undefined;
  /** Every mined source whose key starts with `prefix`, by key. */
  listSources(prefix: string): SourceRecord[];
  /** Atomically: file `drafts` as the whole content of `key` (drawers no longer in it are removed
   *  unless another source holds them), record `contentHash` and `origin`. One transaction: a kill
   *  during it leaves the previous state. */
  replaceSource(
    key: string,
    contentHash: string,
    drafts: DrawerDraft[],
    origin?: string,
    options?: ReplaceSourceOptions,
  ): Promise<ReplaceSourceResult>;
  /** Applies whatever `deferVectors` left pending, so readers see it. A sink without deferred work may omit it. */
  flush?(): Promise<void>;
  /** Atomically: forget source `key` and remove its drawers that nothing else holds. */
  removeSource(key: string): Promise<RemoveSourceResult>;
}
