/**
 * A drawer is one verbatim chunk of memory (a conversation turn or exchange, a section of a
 * file, a note an agent remembered), filed in a wing (a person or project) and a room (a topic).
 * Its text is stored exactly as given and never summarised.
 */

/** Scalar metadata only: Chroma rejects arrays and objects as metadata values. */
export type DrawerMetadata = Record<string, string | number | boolean>;

/** What a miner (or `remember`) hands the palace to file. */
export interface DrawerDraft {
  /** Verbatim text; never rewritten. */
  content: string;
  wing: string;
  room: string;
  /** A corridor inside a wing grouping rooms by kind (e.g. "conversations", "code", "docs", "diary"). */
  hall?: string;
  /** Where it came from: a file path relative to the mined root, a conversation id, "agent". */
  source?: string;
  /** Position inside the source (0-based chunk index, or turn index in a conversation). */
  position?: number;
  /** Who said it, for conversation turns. */
  speaker?: string;
  /** The source's own turn id (LoCoMo `dia_id`, a message uuid), kept so evidence can be traced. */
  turnId?: string;
  /** Conversation or session id the turn belongs to. */
  sessionId?: string;
  /** ISO 8601 time the memory is about (the message time); defaults to when it was filed. */
  timestamp?: string;
  metadata?: DrawerMetadata;
}

/** A drawer as stored: the draft plus its content-derived id and bookkeeping. */
export interface Drawer extends DrawerDraft {
  /** Content-derived (see `drawerId`): filing the same draft again yields the same id. */
  id: string;
  hall: string;
  timestamp: string;
  /** When it was filed (ISO 8601). */
  filedAt: string;
  /** sha256 hex of `content`, shared by drawers with the same text in different places. */
  contentHash: string;
  /** Pinned drawers are always candidates for the wake-up context. */
  pinned: boolean;
  /** How often a search returned it; with `lastAccessed`, a signal of what matters. */
  accessCount: number;
  /** When a search last returned it (ISO 8601), if ever. */
  lastAccessed?: string;
}
