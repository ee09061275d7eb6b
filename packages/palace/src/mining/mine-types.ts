import type { ConversationChunking } from "../formats/chunk-conversation.js";
import type { ConversationFormat, SourcePosition } from "../formats/conversation.js";
import type { MineLimits } from "../limits.js";
import type { ExclusionReason } from "./project-walker.js";
import type { RoomRule } from "./rooms.js";

/** The shapes of a mining run: its options, the events it streams and its result. */

export type MineMode = "convos" | "project";

export interface MineOptions {
  /** "convos": conversation exports and transcripts; "project": a folder of code and docs. */
  mode: MineMode;
  /** The wing every drawer is filed in (a person or a project). */
  wing: string;
  /** Read every file as this format instead of detecting it (convos mode). */
  format?: ConversationFormat;
  /** Conversation drawers: one per message ("turn") or per user message with its replies ("exchange", the default). */
  chunking?: ConversationChunking;
  /** The user's own rooms; they take precedence over folder and topic rooms. */
  rooms?: RoomRule[];
  onProgress?: (event: MineEvent) => void;
  /** Stops the run between two sources (each source is filed whole or not at all). */
  signal?: AbortSignal;
  limits?: Partial<MineLimits>;
}

/** A file (or part of one) that could not be mined; the rest of the run went on. */
export interface MineError {
  /** Relative to the mined path (the file's name when a single file was mined). */
  file: string;
  /** Line and column, or the JSON path, when known. */
  position?: SourcePosition;
  message: string;
}

export interface MineResult {
  /** Sources seen: project files, or conversations. */
  sources: number;
  /** Drawers created. */
  added: number;
  /** Drawers that were already filed (same content, turn and wing). */
  kept: number;
  /** Drawers that left the palace: no longer in a changed source, or their source is gone, and no other source holds them. */
  removed: number;
  /**
   * Sources gone since the last run of the same origin, removed with their drawers: project
   * files deleted (or now ignored, too large, binary), conversations no longer in the export file
   * they were mined from.
   */
  sourcesRemoved: number;
  /** Sources unchanged since they were last mined (not re-read into the palace). */
  skipped: number;
  /** Files left out on purpose (binary, too large, lockfile, not an export). */
  excluded: number;
  errors: MineError[];
}

export type MineExclusionReason = ExclusionReason | "not-an-export" | "empty";

export type MineEvent =
  /** The walk is done: `files` will be read. */
  | { type: "start"; mode: MineMode; path: string; files: number }
  | { type: "excluded"; file: string; reason: MineExclusionReason }
  /** A source was filed ("changed": it had been mined before with other content) or skipped. */
  | {
      type: "source";
      key: string;
      file: string;
      /** "removed": the source is gone from where it was mined (see `MineResult.sourcesRemoved`). */
      status: "added" | "changed" | "unchanged" | "removed";
      added: number;
      kept: number;
      removed: number;
    }
  | { type: "error"; error: MineError }
  /** `done` of `files` files are finished. */
  | { type: "file"; file: string; done: number; files: number }
  | { type: "done"; result: MineResult };

/** "file:position: message", as compilers print it. */
export function formatMineError(error: MineError): string {
  return `${error.file}${error.position ? `: ${error.position}` : ""}: ${error.message}`;
}
