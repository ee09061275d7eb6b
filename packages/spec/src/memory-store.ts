/** Contract version of `MemoryStore`; bump on a breaking change. */
export const MEMORY_STORE_CONTRACT_VERSION = 1;

/** Where a memory is filed. In the palace: wing (a person or project) and room (a topic). */
export interface MemoryScope {
  wing?: string;
  room?: string;
}

export interface MemoryItem {
  /** Stored verbatim: recall returns exactly this text. */
  content: string;
  scope?: MemoryScope;
  /** Where it came from (a file, a conversation id, "agent"). */
  source?: string;
  /** ISO 8601 time the memory is about; defaults to when it was stored. */
  timestamp?: string;
  metadata?: Record<string, string | number | boolean>;
}

export interface RememberResult {
  /** Content-derived: remembering the same content in the same scope returns the same id. */
  id: string;
  /** False when the memory was already there (nothing was duplicated). */
  created: boolean;
}

export interface RecallOptions {
  /** Only memories inside this scope (a wing, or a room of a wing). */
  scope?: MemoryScope;
  /** At most this many hits (default chosen by the store, at least 1). */
  limit?: number;
}

export interface RecallHit {
  id: string;
  content: string;
  scope: MemoryScope;
  /** Higher is better; comparable within one result list only. */
  score: number;
  source?: string;
  timestamp?: string;
  metadata?: Record<string, string | number | boolean>;
}

/**
 * What an agent needs from long-term memory. `wakeUp` returns a compact context (who the user
 * is, what matters) that fits `budgetTokens` as counted by the store's tokenizer.
 */
export interface MemoryStore {
  remember(item: MemoryItem): Promise<RememberResult>;
  recall(query: string, options?: RecallOptions): Promise<RecallHit[]>;
  wakeUp(budgetTokens: number): Promise<string>;
  /** Counts tokens the way `wakeUp` budgets them. */
  countTokens(text: string): number;
  close?(): Promise<void>;
}

export function inScope(scope: MemoryScope | undefined, filter: MemoryScope | undefined): boolean {
  if (!filter) return true;
  if (filter.wing !== undefined && scope?.wing !== filter.wing) return false;
  if (filter.room !== undefined && scope?.room !== filter.room) return false;
  return true;
}
