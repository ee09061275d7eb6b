import { lastAtOrBelow } from "./sorted-search.js";

/**
 * The numbering of a tree's chunks the grep index uses: pages in sorted path order, each page's
 * chunks in index order, counted from 0 (the order ingest adds them to `GrepIndexBuilder`).
 */
export class ChunkOrdinals {
  /** Paths in sorted order. */
  readonly paths: string[];
  /** The ordinal of each page's first chunk, and the total at the end. */
  private readonly firsts: Uint32Array;

  constructor(pages: Iterable<[path: string, chunks: number]>) {
    const sorted = [...pages].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.paths = sorted.map(([path]) => path);
    this.firsts = new Uint32Array(sorted.length + 1);
    sorted.forEach(([, chunks], page) => {
      this.firsts[page + 1] = (this.firsts[page] as number) + chunks;
    });
  }

  get total(): number {
    return this.firsts[this.paths.length] as number;
  }

  /** The page (its position in `paths`) holding chunk `ordinal`. */
  pageOf(ordinal: number): number {
    return lastAtOrBelow(this.firsts, ordinal, this.paths.length);
  }

  /** The ordinal of the first chunk of page number `page` (its position in `paths`). */
  firstOf(page: number): number {
    return this.firsts[page] as number;
  }
}
