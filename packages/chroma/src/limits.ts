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
  portAttempts: number;
  /** Lines of server output kept in memory (`server.logs`); the full log is in the data dir. */
  serverLogRingLines: number;
  /** Longest single log line kept in memory, in characters. */
  serverLogLineMaxChars: number;
  /** How long a second starter waits for the first one to finish starting the same data dir. */
  startLockWaitMs: number;
  /**
   * Unexpected exits of a supervised server (or failed restarts) tolerated within
   * `serverRestartWindowMs`; one more and the owner stops restarting it (health "down").
   */
  serverRestartMaxAttempts: number;
  /** The window in which exits count as "quick" failures toward `serverRestartMaxAttempts`. */
  serverRestartWindowMs: number;
  /** Pause before the first restart; each further quick failure doubles it... */
  serverRestartBackoffMinMs: number;
  /** ...up to this. */
  serverRestartBackoffMaxMs: number;
  /** Dimensions accepted by the hashing embedding. */
  hashingMinDimensions: number;
  hashingMaxDimensions: number;
  /** Characters of one text the hashing embedding reads; the rest is ignored (bounded cost). */
  hashingMaxTextChars: number;
  /** Texts per request of the AI SDK embedding (providers cap batch sizes; larger inputs are split). */
  embedBatchMaxTexts: number;
}

export const DEFAULT_CHROMA_LIMITS: Readonly<ChromaLimits> = Object.freeze({
  serverStartTimeoutMs: 20_000,
  heartbeatRequestTimeoutMs: 2_000,
  serverStopTimeoutMs: 6_000,
  portAttempts: 3,
  serverLogRingLines: 400,
  serverLogLineMaxChars: 2_000,
  startLockWaitMs: 25_000,
  serverRestartMaxAttempts: 5,
  serverRestartWindowMs: 60_000,
  serverRestartBackoffMinMs: 100,
  serverRestartBackoffMaxMs: 5_000,
  hashingMinDimensions: 8,
  hashingMaxDimensions: 8_192,
  hashingMaxTextChars: 65_536,
  embedBatchMaxTexts: 96,
});

const CHROMA_LIMIT_KINDS: LimitKinds<ChromaLimits> = {
  serverStartTimeoutMs: "duration",
  heartbeatRequestTimeoutMs: "duration",
  serverStopTimeoutMs: "duration",
  portAttempts: "count",
  serverLogRingLines: "count",
  serverLogLineMaxChars: "count",
  startLockWaitMs: "duration",
  serverRestartMaxAttempts: "count",
  serverRestartWindowMs: "duration",
  serverRestartBackoffMinMs: "duration",
  serverRestartBackoffMaxMs: "duration",
  hashingMinDimensions: "count",
  hashingMaxDimensions: "count",
  hashingMaxTextChars: "count",
  embedBatchMaxTexts: "count",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveChromaLimits(partial: Partial<ChromaLimits> = {}): Readonly<ChromaLimits> {
  return resolveLimitValues("@atrium/chroma", DEFAULT_CHROMA_LIMITS, CHROMA_LIMIT_KINDS, partial);
}
