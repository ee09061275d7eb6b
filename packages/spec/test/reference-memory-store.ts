import { createHash } from "node:crypto";
import {
  inScope,
  type MemoryItem,
  type MemoryStore,
  type RecallHit,
  type RecallOptions,
  type RememberResult,
  ValidationError,
} from "../src/index.js";

/** A correct in-memory `MemoryStore` (word-overlap scoring), to prove the contract suite passes. */
export class ReferenceMemoryStore implements MemoryStore {
  protected readonly items = new Map<string, MemoryItem>();

  async remember(item: MemoryItem): Promise<RememberResult> {
    if (!item.content.trim())
      throw new ValidationError("memory", [{ path: ["content"], message: "is empty" }]);
    const id = createHash("sha256")
      .update(`${item.scope?.wing ?? ""}/${item.scope?.room ?? ""}/${item.content}`)
      .digest("hex")
      .slice(0, 16);
    const created = !this.items.has(id);
    if (created) this.items.set(id, item);
    return { id, created };
  }

  async recall(query: string, options: RecallOptions = {}): Promise<RecallHit[]> {
    const words = tokens(query);
    const hits: RecallHit[] = [];
    for (const [id, item] of this.items) {
      if (!inScope(item.scope, options.scope)) continue;
      const have = new Set(tokens(item.content));
      const score = words.filter((word) => have.has(word)).length;
      if (score > 0) hits.push({ id, content: item.content, scope: { ...item.scope }, score });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, options.limit ?? 5);
  }

  async wakeUp(budgetTokens: number): Promise<string> {
    const lines: string[] = [];
    for (const item of this.items.values()) {
      const next = [...lines, item.content].join("\n");
      if (this.countTokens(next) > budgetTokens) break;
      lines.push(item.content);
    }
    if (lines.length === 0) {
      const first = this.items.values().next().value;
      return first
        ? first.content
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
}

function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
