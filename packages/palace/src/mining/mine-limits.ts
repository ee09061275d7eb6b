import { type LimitKinds, resolveLimitValues } from "@atrium/spec";

/**
 * Every limit of a mining run. Files come from anywhere on disk (exports, whole repositories),
 * so what is read and how large a drawer may grow are bounded. Kept apart from the package's
 * `src/limits.ts` (the core's) so mining can run and be tested against any `DrawerSink`; the
 * palace passes overrides through.
 */
export interface MineLimits {
  /**
   * Characters of one mined drawer. A longer message or section is cut at paragraph, line,
   * sentence or word boundaries into several drawers. Part of every source's hash: changing it
   * re-files everything on the next run.
   */
  chunkMaxChars: number;
  /** Bytes of one project file; larger ones are left out (generated data, dumps, bundles). */
  projectFileMaxBytes: number;
  /** Bytes of one conversation export file (a Claude.ai or ChatGPT export holds every conversation). */
  exportFileMaxBytes: number;
  /** Files one run walks at most; past it the run stops with an error saying so. */
  maxFiles: number;
  /**
   * Drafts filed between two vector flushes. A run defers each source's vectors and applies
   * them in rounds this large (one embedding call and one index upsert per round instead of per
   * source); it bounds how far another reader's vector leg lags behind a running mine.
   */
  vectorFlushDrafts: number;
}

export const DEFAULT_MINE_LIMITS: Readonly<MineLimits> = Object.freeze({
  chunkMaxChars: 2_000,
  projectFileMaxBytes: 1024 * 1024,
  exportFileMaxBytes: 256 * 1024 * 1024,
  maxFiles: 500_000,
  vectorFlushDrafts: 5_000,
});

const MINE_LIMIT_KINDS: LimitKinds<MineLimits> = {
  chunkMaxChars: "count",
  projectFileMaxBytes: "count",
  exportFileMaxBytes: "count",
  maxFiles: "count",
  vectorFlushDrafts: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveMineLimits(partial: Partial<MineLimits> = {}): Readonly<MineLimits> {
  return resolveLimitValues("@atrium/palace mining", DEFAULT_MINE_LIMITS, MINE_LIMIT_KINDS, partial);
}
