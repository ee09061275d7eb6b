/** Every limit @atrium/chroma enforces, in one place. */

/** How long `startChromaServer` waits for the first heartbeat before giving up. */
export const SERVER_START_TIMEOUT_MS = 20_000;
/** Pause between heartbeat probes while the server starts. */
export const HEARTBEAT_POLL_INTERVAL_MS = 50;
/** One heartbeat request (start-up probes, liveness checks, `connectChroma`). */
export const HEARTBEAT_REQUEST_TIMEOUT_MS = 2_000;
/** After SIGTERM, how long `stop()` waits before SIGKILL. The server exits in about 2 s. */
export const SERVER_STOP_TIMEOUT_MS = 6_000;
/** How often the server's watchdog thread checks that the process that started it is alive. */
export const PARENT_WATCH_INTERVAL_MS = 500;
/** Fresh ports tried when the chosen one was taken between probing and binding. */
export const PORT_ATTEMPTS = 3;
/** Lines of server output kept in memory (`server.logs`); the full log is in the data dir. */
export const SERVER_LOG_RING_LINES = 400;
/** Longest single log line kept in memory, in characters. */
export const SERVER_LOG_LINE_MAX_CHARS = 2_000;
/** How long a second starter waits for the first one to finish starting the same data dir. */
export const START_LOCK_WAIT_MS = 25_000;

/** Default vector size of the offline hashing embedding. */
export const HASHING_DEFAULT_DIMENSIONS = 384;
/** Dimensions accepted by the hashing embedding. */
export const HASHING_MIN_DIMENSIONS = 8;
export const HASHING_MAX_DIMENSIONS = 8_192;
/** Characters of one text the hashing embedding reads; the rest is ignored (bounded cost). */
export const HASHING_MAX_TEXT_CHARS = 65_536;

/** Texts per `embedMany` call of the AI SDK embedding (providers cap batch sizes). */
export const AI_SDK_EMBED_BATCH_SIZE = 96;
