import type { SerializedError } from "@atrium/spec";
import type { StoreRecipe } from "../store/store-recipe.js";

/**
 * The messages between a `SessionWorkerPool` and its worker threads: the only module both sides
 * of the thread boundary share. Plain data only (structured clone), tagged on `type`.
 */

/** What a worker is started with (`workerData`). */
export interface WorkerStart {
  recipe: StoreRecipe;
  /** Page cache bytes this worker's sessions share. */
  pageCacheBytes: number;
  /** The first cancellation or turn of another command waits at most this long in a busy command. */
  timeSliceMs: number;
}

export type HostMessage =
  | { type: "open"; sessionId: number; groups: readonly string[] }
  | { type: "exec"; commandId: number; sessionId: number; command: string; cwd: string }
  | { type: "cancel"; commandId: number }
  | { type: "close"; sessionId: number }
  /** The answer to `where-is-server`: where the followed Chroma server answers now. */
  | { type: "server-url"; requestId: number; url: string };

/** A command's answer; `storeUnavailable` carries what the host rebuilds as a StoreUnavailableError. */
export interface CommandReply {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The directory the session's next command starts in. */
  cwd: string;
  storeUnavailable?: { message: string; store: string; reason: string };
}

export type WorkerMessage =
  | { type: "ready" }
  | { type: "start-failed"; error: SerializedError }
  | { type: "opened"; sessionId: number }
  | { type: "open-failed"; sessionId: number; error: SerializedError }
  | { type: "result"; commandId: number; reply: CommandReply }
  | { type: "failed"; commandId: number; error: SerializedError }
  /** The store could not reach its server: the host asks its server object where it is now. */
  | { type: "where-is-server"; requestId: number };
