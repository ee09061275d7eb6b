import type { DrawerDraft } from "../drawers/drawer.js";
import { drawerId } from "../drawers/drawer-id.js";
import type { DrawerSink, ReplaceSourceResult, SourceRecord } from "./drawer-sink.js";

/**
 * A `DrawerSink` held in memory: the contract the palace implements, without SQLite or Chroma.
 * For dry runs (what would a mining run file, in which rooms?) and for testing mining on its own.
 * Same semantics as the palace: ids are content-derived, a drawer another source already filed
 * stays with that source (and counts as kept), and `replaceSource` changes nothing until it has
 * checked its input, so a failed call leaves the previous state.
 */
export class MemoryDrawerSink implements DrawerSink {
  readonly #sources = new Map<string, SourceRecord>();
  readonly #drawers = new Map<string, DrawerDraft & { id: string; source: string }>();
  readonly #idsBySource = new Map<string, Set<string>>();

  getSource(key: string): SourceRecord | undefined {
    const record = this.#sources.get(key);
    return record && { ...record };
  }

  async replaceSource(key: string, contentHash: string, drafts: DrawerDraft[]): Promise<ReplaceSourceResult> {
    if (key === "" || contentHash === "")
      throw new TypeError("replaceSource needs a source key and a content hash");
    drafts.forEach((draft, index) => {
      if (draft.source !== undefined && draft.source !== key) {
        throw new TypeError(
          `drafts[${index}].source is ${JSON.stringify(draft.source)}, not the source key ${JSON.stringify(key)}`,
        );
      }
      if (draft.content.trim() === "") throw new TypeError(`drafts[${index}].content is empty`);
    });
    const before = this.#idsBySource.get(key) ?? new Set<string>();
    const wanted = new Set<string>();
    const counts: ReplaceSourceResult = { added: 0, kept: 0, removed: 0 };
    for (const draft of drafts) {
      const id = drawerId(draft);
      if (wanted.has(id)) continue;
      wanted.add(id);
      const existing = this.#drawers.get(id);
      if (existing === undefined) counts.added++;
      else counts.kept++;
      if (existing === undefined || existing.source === key)
        this.#drawers.set(id, { ...draft, id, source: key });
    }
    for (const id of before) {
      if (wanted.has(id)) continue;
      this.#drawers.delete(id);
      counts.removed++;
    }
    const owned = new Set([...wanted].filter((id) => this.#drawers.get(id)?.source === key));
    this.#idsBySource.set(key, owned);
    this.#sources.set(key, { key, contentHash, drawerCount: wanted.size, minedAt: new Date().toISOString() });
    return counts;
  }

  /** Every drawer, in filing order. */
  drawers(): (DrawerDraft & { id: string; source: string })[] {
    return [...this.#drawers.values()].map((drawer) => ({ ...drawer }));
  }

  sources(): SourceRecord[] {
    return [...this.#sources.values()].map((record) => ({ ...record }));
  }
}
