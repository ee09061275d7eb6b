import { type LimitKinds, resolveLimitValues } from "@atrium/kit";

/**
 * Every limit @atrium/chroma enforces, in one place; poll intervals and the hashing embedding's
 * default size are heuristics, in `tuning.ts`. Options that override a limit (`startTimeoutMs`,
 * `maxBatchSize`) go through `resolveChromaLimits`, so a bad value is refused naming the field.
 */
export interface ChromaLimits {
  /** How long `startChromaServer` waits for the first heartbeat before giving up. */
  serverStartTimeoutMs: number;
  /** One heartbeat request (start-up probes, liveness checks, `connectChroma`). */
  heartbeatRequestTimeoutMs: number;
  /** After SIGTERM, how long `stop()` waits before SIGKILL. The server exits in about 2 s. */
  serverStopTimeoutMs: number;
  /** Fresh ports tried when the chosen one was taken between probing and binding. */
  maxPortAttempts: number;
  /** Lines of server output kept in memory (`server.logs`); the full log is in the data dir. */
  maxServerLogLines: number;
  /** Longest single log line kept in memory, in characters. */
  maxServerLogLineChars: number;
  /** How long a second starter waits for the first one to finish starting the same data dir. */
  startLockWaitMs: number;
  /**
   * Unexpected exits of a supervised server (or failed restarts) tolerated within
   * `serverRestartWindowMs`; one more and the owner stops restarting it (health "down").
   */
  maxServerRestarts: number;
  /** The window in which exits count as "quick" failures toward `maxServerRestarts`. */
  serverRestartWindowMs: number;
  /** Pause before the first restart; each further quick failure doubles it... */
  minRestartBackoffMs: number;
  /** ...up to this. */
  maxRestartBackoffMs: number;
  /** Dimensions accepted by the hashing embedding. */
  minHashingDimensions: number;
  maxHashingDimensions: number;
  /** Characters of one text the hashing embedding reads; the rest is ignored (bounded cost). */
  maxHashingTextChars: number;
  /** Texts per request of the AI SDK embedding (providers cap batch sizes; larger inputs are split). */
  maxEmbedBatchTexts: number;
}

export const DEFAULT_CHROMA_LIMITS: Readonly<ChromaLimits> = Object.freeze({
  serverStartTimeoutMs: 20_000,
  heartbeatRequestTimeoutMs: 2_000,
  serverStopTimeoutMs: 6_000,
  maxPortAttempts: 3,
  maxServerLogLines: 400,
  maxServerLogLineChars: 2_000,
  startLockWaitMs: 25_000,
  maxServerRestarts: 5,
  serverRestartWindowMs: 60_000,
  minRestartBackoffMs: 100,
  maxRestartBackoffMs: 5_000,
  minHashingDimensions: 8,
  maxHashingDimensions: 8_192,
  maxHashingTextChars: 65_536,
  maxEmbedBatchTexts: 96,
});

const CHROMA_LIMIT_KINDS: LimitKinds<ChromaLimits> = {
  serverStartTimeoutMs: "duration",
  heartbeatRequestTimeoutMs: "duration",
  serverStopTimeoutMs: "duration",
  maxPortAttempts: "count",
  maxServerLogLines: "count",
  maxServerLogLineChars: "count",
  startLockWaitMs: "duration",
  maxServerRestarts: "count",
  serverRestartWindowMs: "duration",
  minRestartBackoffMs: "duration",
  maxRestartBackoffMs: "duration",
  minHashingDimensions: "count",
  maxHashingDimensions: "count",
  maxHashingTextChars: "count",
  maxEmbedBatchTexts: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveChromaLimits(partial: Partial<ChromaLimits> = {}): Readonly<ChromaLimits> {
  return resolveLimitValues("@atrium/chroma", DEFAULT_CHROMA_LIMITS, CHROMA_LIMIT_KINDS, partial);
}
