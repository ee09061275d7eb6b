import { VarintWriter } from "./varint.js";
import { wordRuns } from "./word-runs.js";

const ASCII = /^[\p{ASCII}]*$/u;
/** `wordRuns`'s words in ASCII text: letters, digits and `_`. */
const ASCII_WORD = /[a-z0-9_]+/g;

/** What an index holds before it is encoded (see grep-index-codec.ts for the stored form). */
export interface GrepIndexData {
  /** `treeDigest` of the tree the chunks belong to. */
  digest: string;
  /** Distinct folded words, sorted. */
  tokens: string[];
  /** Per token (same order): `count` then the ascending chunk ordinals holding it, as deltas. */
  postings: Uint8Array;
  /** Per chunk ordinal, the page line its first line has, as varints. */
  lines: Uint8Array;
  chunks: number;
}

/**
 * Builds the grep index of a collection while ingest cuts its pages: `add` every page's chunks
 * in the tree's sorted path order (the ordinals are the running chunk count), then `finish`.
 */
export class GrepIndexBuilder {
  private readonly chunksByToken = new Map<string, number[]>();
  private readonly lines = new VarintWriter();
  private chunks = 0;

  /** One page's chunks, with the line each starts at. Pages must come in sorted path order. */
  addPage(chunks: readonly string[], startLines: readonly number[]): void {
    chunks.forEach((text, index) => {
      const ordinal = this.chunks++;
      this.lines.write(startLines[index] as number);
      // ASCII text (most docs) takes the quick path: the same words, lowered in one call.
      const tokens = ASCII.test(text) ? (text.toLowerCase().match(ASCII_WORD) ?? []) : wordRuns(text);
      for (const token of tokens) {
        const list = this.chunksByToken.get(token);
        if (!list) this.chunksByToken.set(token, [ordinal]);
        else if (list[list.length - 1] !== ordinal) list.push(ordinal);
      }
    });
  }

  finish(digest: string): GrepIndexData {
    const tokens = [...this.chunksByToken.keys()].sort();
    const postings = new VarintWriter();
    for (const token of tokens) {
      const ordinals = this.chunksByToken.get(token) as number[];
      postings.write(ordinals.length);
      let previous = 0;
      for (const ordinal of ordinals) {
        postings.write(ordinal - previous);
        previous = ordinal;
      }
    }
    return { digest, tokens, postings: postings.finish(), lines: this.lines.finish(), chunks: this.chunks };
  }
}
