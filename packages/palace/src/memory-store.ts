import {
  ClosedError,
  type MemoryItem,
  type MemoryStore,
  type RecallHit,
  type RecallOptions,
  type RememberResult,
  ValidationError,
  type WakeUpOptions,
} from "@atrium/spec";
import { countTokens } from "gpt-tokenizer";
import { PalaceAccess } from "./access/palace-access.js";
import { isPalaceError } from "./errors.js";
import { wakeUp } from "./layers/wake-up.js";
import { type OpenPalaceOptions, openPalace } from "./open-palace.js";
import type { Palace } from "./palace.js";
import { PalaceView } from "./view/palace-view.js";

/** Where `remember` files a memory whose scope names no wing. */
export const DEFAULT_MEMORY_WING = "memories";
/** ...and no room. */
export const DEFAULT_MEMORY_ROOM = "general";
/** The hall memories an agent remembers are filed in. */
export const MEMORY_HALL = "memories";

export interface PalaceMemoryStoreOptions {
  /** Close the palace when the store closes (default true). */
  closePalace?: boolean;
  /** Default wing and room for memories whose scope names none. */
  wing?: string;
  room?: string;
  /** The `source` of remembered drafts when the item names none (default "agent"). */
  source?: string;
  /** The knowledge-graph entity that is the user, for the wake-up's facts (default "user"). */
  user?: string;
  /**
   * How `recall` searches: a room to keep to when the caller names none, and the mode.
   * `"bm25"` returns only memories that share a word with the query (a hybrid search always
   * returns its k nearest vectors, however far).
   */
  recall?: { room?: string; mode?: "hybrid" | "bm25" | "vector" };
}

/**
 * Spec's `MemoryStore` over a palace: `remember` files a drawer (wing and room from the scope,
 * else the defaults), `recall` is hybrid search, `forget` deletes, `wakeUp` builds the wake-up
 * context within its token budget as gpt-tokenizer counts it. Given a `PalaceView`, it is that
 * identity's memory: it recalls, files and forgets only what the view's grants allow, and
 * remembers into the view's own wing by default.
 */
export class PalaceMemoryStore implements MemoryStore {
  private closed = false;
  readonly view: PalaceView;

  constructor(
    target: Palace | PalaceView,
    private readonly options: PalaceMemoryStoreOptions = {},
  ) {
    this.view = target instanceof PalaceView ? target : new PalaceView(target, PalaceAccess.ADMIN);
  }

  get palace(): Palace {
    return this.view.palace;
  }

  /** Opens (or creates) the palace in `dir` and wraps it; closing the store closes the palace. */
  static async open(
    dir: string,
    options: OpenPalaceOptions & PalaceMemoryStoreOptions = {},
  ): Promise<PalaceMemoryStore> {
    const palace = await openPalace(dir, { create: true, ...options });
    return new PalaceMemoryStore(palace, { ...options, closePalace: true });
  }

  async remember(item: MemoryItem): Promise<RememberResult> {
    this.ensureOpen();
    if (typeof item?.content !== "string" || item.content.trim() === "") {
      throw new ValidationError("memory", [{ path: ["content"], message: "must be non-empty text" }]);
    }
    const [result] = await this.translate(() =>
      this.view.file([
        {
          content: item.content,
          wing: item.scope?.wing ?? this.options.wing ?? this.view.homeWing ?? DEFAULT_MEMORY_WING,
          room: item.scope?.room ?? this.options.room ?? DEFAULT_MEMORY_ROOM,
          hall: MEMORY_HALL,
          source: item.source ?? this.options.source ?? "agent",
          ...(item.timestamp === undefined ? {} : { timestamp: item.timestamp }),
          ...(item.metadata === undefined ? {} : { metadata: item.metadata }),
        },
      ]),
    );
    return result as RememberResult;
  }

  async recall(query: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    this.ensureOpen();
    const hits = await this.translate(() =>
      this.view.search(query, {
        k: options.limit ?? 10,
        ...(this.options.recall?.mode === undefined ? {} : { mode: this.options.recall.mode }),
        ...(options.scope?.wing === undefined ? {} : { wing: options.scope.wing }),
        ...((options.scope?.room ?? this.options.recall?.room) === undefined
          ? {}
          : { room: options.scope?.room ?? this.options.recall?.room }),
        ...(options.timeRange === undefined ? {} : { timeRange: options.timeRange }),
      }),
    );
    return hits.map((hit) => ({
      id: hit.id,
      content: hit.content,
      scope: { wing: hit.wing, room: hit.room },
      score: hit.score,
      timestamp: hit.timestamp,
      ...(hit.source === undefined ? {} : { source: hit.source }),
      ...(hit.metadata === undefined ? {} : { metadata: hit.metadata }),
    }));
  }

  async forget(id: string): Promise<boolean> {
    this.ensureOpen();
    return this.view.delete(id);
  }

  async wakeUp(options: WakeUpOptions): Promise<string> {
    this.ensureOpen();
    const budget = options?.budgetTokens;
    if (!Number.isInteger(budget) || budget < 1) {
      throw new ValidationError("memory", [
        { path: ["budgetTokens"], message: "must be a positive integer" },
      ]);
    }
    const wing = this.options.wing ?? this.view.homeWing;
    return wakeUp(this.palace, {
      budgetTokens: budget,
      access: this.view.access,
      ...(wing === undefined ? {} : { wing }),
      ...(this.options.user === undefined ? {} : { user: this.options.user }),
    });
  }

  countTokens(text: string): number {
    return countTokens(text);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.options.closePalace !== false) await this.palace.close();
  }

  /** Palace input errors become spec `ValidationError`s (same code, the message names the field). */
  private async translate<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isPalaceError(error, "palace/invalid-input")) {
        throw new ValidationError("memory", [{ path: [], message: error.message }], { cause: error });
      }
      throw error;
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new ClosedError("PalaceMemoryStore");
  }
}
