import type { DrawerDraft } from "../drawers/drawer.js";
import { drawerId } from "../drawers/drawer-id.js";
import type {
  DrawerSink,
  RemoveSourceResult,
  ReplaceSourceOptions,
  ReplaceSourceResult,
  SourceRecord,
} from "./drawer-sink.js";

type StoredDrawer = DrawerDraft & { id: string; source: string };

/**
 * A `DrawerSink` held in memory: the contract the palace implements, without SQLite or Chroma.
 * For dry runs (what would a mining run file, in which rooms?) and for testing mining on its own.
 * Same semantics as the palace: ids are content-derived, a drawer another source already filed
 * stays that source's own (and counts as kept) while both hold it, a drawer leaves only when no
 * source holds it (moving to another holder when its own source lets go), and `replaceSource`
 * changes nothing until it has checked its input, so a failed call leaves the previous state.
 */
export class MemoryDrawerSink implements DrawerSink {
  readonly #sources = new Map<string, SourceRecord>();
  readonly #drawers = new Map<string, StoredDrawer>();
  /** Source key → the drawers it holds, with their draft in that source. */
  readonly #held = new Map<string, Map<string, DrawerDraft>>();
  /** Drafts filed with `deferVectors` since the last flush, and each flush's count, in order. */
  #deferred = 0;
  readonly #flushes: number[] = [];
  readonly limits?: { readonly maxBatchDrafts: number };

  /** `maxBatchDrafts`: refuse larger `replaceSource` calls, as a palace does. */
  constructor(options: { maxBatchDrafts?: number } = {}) {
    if (options.maxBatchDrafts !== undefined) this.limits = { maxBatchDrafts: options.maxBatchDrafts };
  }

  getSource(key: string): SourceRecord | undefined {
    const record = this.#sources.get(key);
    return record && { ...record };
  }

  listSources(prefix: string): SourceRecord[] {
    return [...this.#sources.values()]
      .filter((record) => record.key.startsWith(prefix))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((record) => ({ ...record }));
  }

  async replaceSource(
    key: string,
    contentHash: string,
    drafts: DrawerDraft[],
    origin?: string,
    options: ReplaceSourceOptions = {},
  ): Promise<ReplaceSourceResult> {
    if (key === "" || contentHash === "")
      throw new TypeError("replaceSource needs a source key and a content hash");
    if (this.limits !== undefined && drafts.length > this.limits.maxBatchDrafts)
      throw new RangeError(
        `${drafts.length} drafts, more than maxBatchDrafts (${this.limits.maxBatchDrafts})`,
      );
    drafts.forEach((draft, index) => {
      if (draft.source !== undefined && draft.source !== key) {
        throw new TypeError(
          `drafts[${index}].source is ${JSON.stringify(draft.source)}, not the source key ${JSON.stringify(key)}`,
        );
      }
      if (draft.content.trim() === "") throw new TypeError(`drafts[${index}].content is empty`);
    });
    const before = this.#held.get(key) ?? new Map<string, DrawerDraft>();
    const held = new Map<string, DrawerDraft>();
    const counts: ReplaceSourceResult = { added: 0, kept: 0, removed: 0 };
    for (const draft of drafts) {
      const id = drawerId(draft);
      if (held.has(id)) continue;
      held.set(id, draft);
      const existing = this.#drawers.get(id);
      if (existing === undefined) counts.added++;
      else counts.kept++;
      if (existing === undefined || existing.source === key)
        this.#drawers.set(id, { ...draft, id, source: key });
    }
    this.#held.set(key, held);
    for (const id of before.keys()) {
      if (!held.has(id) && this.#release(id, key)) counts.removed++;
    }
    const previous = this.#sources.get(key);
    const kept = origin ?? previous?.origin;
    this.#sources.set(key, {
      key,
      contentHash,
      drawerCount: held.size,
      minedAt: new Date().toISOString(),
      ...(kept === undefined ? {} : { origin: kept }),
    });
    if (options.deferVectors === true) this.#deferred += drafts.length;
    return counts;
  }

  /** Nothing to apply here (no vectors); records how many deferred drafts each flush covered. */
  async flush(): Promise<void> {
    this.#flushes.push(this.#deferred);
    this.#deferred = 0;
  }

  /** Per `flush` call, the drafts filed with `deferVectors` since the one before (what a run left to each flush). */
  flushes(): number[] {
    return [...this.#flushes];
  }

  async removeSource(key: string): Promise<RemoveSourceResult> {
    const found = this.#sources.delete(key);
    const held = this.#held.get(key) ?? new Map<string, DrawerDraft>();
    this.#held.delete(key);
    const counts: RemoveSourceResult = { found, removed: 0, kept: 0 };
    for (const id of held.keys()) {
      if (this.#release(id, key)) counts.removed++;
      else counts.kept++;
    }
    return counts;
  }

  /** Every drawer, in filing order. */
  drawers(): StoredDrawer[] {
    return [...this.#drawers.values()].map((drawer) => ({ ...drawer }));
  }

  sources(): SourceRecord[] {
    return [...this.#sources.values()].map((record) => ({ ...record }));
  }

  /** `key` no longer holds drawer `id` (already dropped from its held map): true when the drawer left. */
  #release(id: string, key: string): boolean {
    const drawer = this.#drawers.get(id);
    if (drawer === undefined || drawer.source !== key) return false;
    const next = [...this.#held.entries()]
      .filter(([source, held]) => source !== key && held.has(id))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))[0];
    if (next === undefined) {
      this.#drawers.delete(id);
      return true;
    }
    const [source, held] = next;
    this.#drawers.set(id, { ...(held.get(id) as DrawerDraft), id, source });
    return false;
  }
}
