import { createHash } from "node:crypto";
import {
  ClosedError,
  checkTimeRange,
  inScope,
  type MemoryItem,
  type MemoryStore,
  parseIsoTime,
  type RecallHit,
  type RecallOptions,
  type RememberResult,
  ValidationError,
  type WakeUpOptions,
} from "../src/index.js";

interface Stored {
  item: MemoryItem;
  timestamp: string;
  at: number;
}

/** A correct in-memory `MemoryStore` (word-overlap scoring), to prove the contract suite passes. */
export class ReferenceMemoryStore implements MemoryStore {
  protected readonly items = new Map<string, Stored>();
  #closed = false;

  async remember(item: MemoryItem): Promise<RememberResult> {
    this.checkOpen();
    if (!item.content.trim())
      throw new ValidationError("memory", [{ path: ["content"], message: "is empty" }]);
    const timestamp = item.timestamp ?? new Date().toISOString();
    const at = parseIsoTime(timestamp, "timestamp");
    const id = createHash("sha256")
      .update(`${item.scope?.wing ?? ""}/${item.scope?.room ?? ""}/${item.content}`)
      .digest("hex")
      .slice(0, 16);
    const created = !this.items.has(id);
    if (created) this.items.set(id, { item, timestamp, at });
    return { id, created };
  }

  async recall(query: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    this.checkOpen();
    const range = checkTimeRange(options.timeRange);
    const words = tokens(query);
    const hits: RecallHit[] = [];
    for (const [id, { item, timestamp, at }] of this.items) {
      if (!inScope(item.scope, options.scope)) continue;
      if (at < range.from || at > range.to) continue;
      const have = new Set(tokens(item.content));
      const score = words.filter((word) => have.has(word)).length;
      if (score > 0) hits.push({ id, content: item.content, scope: { ...item.scope }, score, timestamp });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, options.limit ?? 5);
  }

  async forget(id: string): Promise<boolean> {
    this.checkOpen();
    return this.items.delete(id);
  }

  async wakeUp({ budgetTokens }: WakeUpOptions): Promise<string> {
    this.checkOpen();
    const lines: string[] = [];
    for (const { item } of this.items.values()) {
      const next = [...lines, item.content].join("\n");
      if (this.countTokens(next) > budgetTokens) break;
      lines.push(item.content);
    }
    if (lines.length === 0) {
      const first = this.items.values().next().value;
      return first
        ? first.item.content
            .split(" ")
            .slice(0, Math.max(1, budgetTokens - 1))
            .join(" ")
        : "";
    }
    return lines.join("\n");
  }

  countTokens(text: string): number {
    return text.split(/\s+/).filter(Boolean).length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.items.clear();
  }

  protected checkOpen(): void {
    if (this.#closed) throw new ClosedError("this memory store");
  }
}

function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
