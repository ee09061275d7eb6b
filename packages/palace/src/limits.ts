import { type LimitKinds, resolveLimitValues } from "@atrium/kit";

/**
 * Every limit @atrium/palace enforces, in one place (heuristics that only trade speed or ranking
 * quality are in `tuning.ts`). Options that override one go through `resolvePalaceLimits`, so a
 * bad value is refused naming the field.
 */
export interface PalaceLimits {
  /** The longest drawer, in characters; a longer draft is refused (miners chunk below it). */
  maxDrawerChars: number;
  /** Drafts one `file` / `replaceSource` call accepts (one SQLite transaction holds them all). */
  maxBatchDrafts: number;
  /** Characters of a wing, room, hall, source, speaker, turn or session id. */
  maxNameChars: number;
  /** Keys of one drawer's metadata. */
  maxMetadataKeys: number;
  /** How long a writer waits for another process's write lock before failing (SQLite busy_timeout). */
  busyTimeoutMs: number;
  /** The most hits one search returns. */
  maxSearchK: number;
  /** Characters of a search query (or a duplicate check's content). */
  maxQueryChars: number;
  /** Drawers neighbour expansion adds on each side of a hit. */
  maxNeighbours: number;
  /** Drawers one `list` page returns. */
  maxListLimit: number;
  /** Characters of the identity (L0) text in palace.json. */
  maxIdentityChars: number;
  /** Bytes of one line an import reads (a drawer plus its JSON). */
  maxImportLineBytes: number;
  /** The largest token budget a wake-up accepts (it reads candidates in proportion). */
  maxWakeUpTokens: number;
}

export const DEFAULT_PALACE_LIMITS: Readonly<PalaceLimits> = Object.freeze({
  maxDrawerChars: 100_000,
  maxBatchDrafts: 20_000,
  maxNameChars: 512,
  maxMetadataKeys: 64,
  busyTimeoutMs: 30_000,
  maxSearchK: 200,
  maxQueryChars: 8_000,
  maxNeighbours: 5,
  maxListLimit: 1_000,
  maxIdentityChars: 4_000,
  maxImportLineBytes: 1_000_000,
  maxWakeUpTokens: 8_000,
});

const PALACE_LIMIT_KINDS: LimitKinds<PalaceLimits> = {
  maxDrawerChars: "count",
  maxBatchDrafts: "count",
  maxNameChars: "count",
  maxMetadataKeys: "count",
  busyTimeoutMs: "duration",
  maxSearchK: "count",
  maxQueryChars: "count",
  maxNeighbours: "count",
  maxListLimit: "count",
  maxIdentityChars: "count",
  maxImportLineBytes: "count",
  maxWakeUpTokens: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolvePalaceLimits(partial: Partial<PalaceLimits> = {}): Readonly<PalaceLimits> {
  return resolveLimitValues("@atrium/palace", DEFAULT_PALACE_LIMITS, PALACE_LIMIT_KINDS, partial);
}
