/**
 * Heuristics of @atrium/chroma: numbers that trade responsiveness for work and bound nothing
 * (the limits are in `limits.ts`).
 */

/** Pause between heartbeat probes while the server starts. */
export const HEARTBEAT_POLL_INTERVAL_MS = 50;

/** How often the server's watchdog thread checks that the process that started it is alive. */
export const PARENT_WATCH_INTERVAL_MS = 500;

/**
 * Default vector size of the offline hashing embedding: the usual size of small neural
 * embeddings, where feature-hash collisions stop costing recall on docs-sized corpora.
 */
export const HASHING_DEFAULT_DIMENSIONS = 384;
