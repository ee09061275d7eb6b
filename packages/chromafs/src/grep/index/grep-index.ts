import { GrepIndexError } from "../../errors.js";
import { decodeGrepIndex } from "./grep-index-codec.js";
import { type LiteralRun, literalRuns } from "./literal-runs.js";
import { lastAtOrBelow } from "./sorted-search.js";
import { readVarint } from "./varint.js";
/**
 * A collection's grep index in memory: every distinct (folded) word of the docs with the chunks
 * holding it, and each chunk's first line. `chunksFor(literal)` answers, without a server round
 * trip, a superset of the chunks that hold a literal (case-sensitively or not): the chunks that
 * hold, for each word run of the literal, a word it fits into (`literalRuns`).
 *
 * The vocabulary is kept as one string, `\n` + the sorted words joined by `\n` + `\n`, so finding
 * every word that contains, starts with, ends with or equals a run is one `indexOf` loop over
 * it. Chunks are numbered in the tree's sorted path order (`ChunkOrdinals`).
 */
export class GrepIndex {
  readonly digest: string;
  readonly chunkCount: number;
  private readonly vocabulary: string;
  /** Where token i starts in `vocabulary` (after its leading `\n`). */
  private readonly tokenStarts: Uint32Array;
  /** Where token i's postings start in `postings`, after their count. */
  private readonly postingStarts: Uint32Array;
  private readonly postingCounts: Uint32Array;
  private readonly postings: Uint8Array;
  /** Per chunk ordinal, the page line its first line has. */
  readonly chunkLines: Uint32Array;

  private constructor(fields: {
    digest: string;
    chunkCount: number;
    vocabulary: string;
    tokenStarts: Uint32Array;
    postingStarts: Uint32Array;
    postingCounts: Uint32Array;
    postings: Uint8Array;
    chunkLines: Uint32Array;
  }) {
    this.digest = fields.digest;
    this.chunkCount = fields.chunkCount;
    this.vocabulary = fields.vocabulary;
    this.tokenStarts = fields.tokenStarts;
    this.postingStarts = fields.postingStarts;
    this.postingCounts = fields.postingCounts;
    this.postings = fields.postings;
    this.chunkLines = fields.chunkLines;
  }

  /** Decodes and checks a stored index (GrepIndexError when anything doesn't add up). */
  static decode(document: string, maxBytes: number): GrepIndex {
    const { header, vocabulary, postings, lines } = decodeGrepIndex(document, maxBytes);
    const tokenStarts = new Uint32Array(header.tokens);
    let at = 1;
    const wrapped = header.tokens === 0 ? "\n" : `\n${vocabulary}\n`;
    for (let token = 0; token < header.tokens; token++) {
      tokenStarts[token] = at;
      const end = wrapped.indexOf("\n", at);
      if (end === -1 || end === at) throw new GrepIndexError("the grep index vocabulary is malformed");
      at = end + 1;
    }
    if (header.tokens > 0 && at !== wrapped.length)
      throw new GrepIndexError("the grep index vocabulary has extra words");
    const postingStarts = new Uint32Array(header.tokens);
    const postingCounts = new Uint32Array(header.tokens);
    let offset = 0;
    for (let token = 0; token < header.tokens; token++) {
      const count = readVarint(postings, offset);
      if (!count || count[0] === 0) throw new GrepIndexError("the grep index postings are malformed");
      postingCounts[token] = count[0];
      postingStarts[token] = count[1];
      offset = count[1];
      let ordinal = -1;
      for (let entry = 0; entry < count[0]; entry++) {
        const delta = readVarint(postings, offset);
        if (!delta) throw new GrepIndexError("the grep index postings are truncated");
        const next = entry === 0 ? delta[0] : ordinal + delta[0];
        if (next <= ordinal || next >= header.chunks) {
          throw new GrepIndexError("the grep index postings point past its chunks");
        }
        ordinal = next;
        offset = delta[1];
      }
    }
    if (offset !== postings.length) throw new GrepIndexError("the grep index postings have trailing bytes");
    const chunkLines = new Uint32Array(header.chunks);
    offset = 0;
    for (let chunk = 0; chunk < header.chunks; chunk++) {
      const line = readVarint(lines, offset);
      if (!line || line[0] < 1) throw new GrepIndexError("the grep index line numbers are malformed");
      chunkLines[chunk] = line[0];
      offset = line[1];
    }
    if (offset !== lines.length) throw new GrepIndexError("the grep index line numbers have trailing bytes");
    return new GrepIndex({
      digest: header.digest,
      chunkCount: header.chunks,
      vocabulary: wrapped,
      tokenStarts,
      postingStarts,
      postingCounts,
      postings,
      chunkLines,
    });
  }

  /**
   * Flags (1 = may hold it) per chunk ordinal for a literal; null when the literal has no word
   * character, which this index can't narrow.
   */
  chunksFor(literal: string): Uint8Array | null {
    const runs = literalRuns(literal);
    if (runs.length === 0) return null;
    // Longer runs are rarer: start there, and stop as soon as nothing is left.
    const ordered = [...new Map(runs.map((run) => [`${run.placement}:${run.word}`, run])).values()].sort(
      (a, b) => b.word.length - a.word.length,
    );
    let result: Uint8Array | null = null;
    for (const run of ordered) {
      const flags = this.chunksForRun(run);
      if (result) {
        for (let chunk = 0; chunk < flags.length; chunk++) {
          result[chunk] = (result[chunk] as number) & (flags[chunk] as number);
        }
      } else result = flags;
      if (!result.includes(1)) break;
    }
    return result;
  }

  private chunksForRun(run: LiteralRun): Uint8Array {
    const flags = new Uint8Array(this.chunkCount);
    const before = run.placement === "prefix" || run.placement === "whole" ? "\n" : "";
    const after = run.placement === "suffix" || run.placement === "whole" ? "\n" : "";
    const needle = `${before}${run.word}${after}`;
    const tokens = this.tokenStarts.length;
    for (let at = this.vocabulary.indexOf(needle); at !== -1; ) {
      const token = this.tokenAt(at + before.length);
      this.markPostings(token, flags);
      if (token + 1 >= tokens) break;
      at = this.vocabulary.indexOf(needle, (this.tokenStarts[token + 1] as number) - before.length);
    }
    return flags;
  }

  /** The token whose text holds vocabulary offset `at`. */
  private tokenAt(at: number): number {
    return lastAtOrBelow(this.tokenStarts, at);
  }

  private markPostings(token: number, flags: Uint8Array): void {
    const postings = this.postings;
    let offset = this.postingStarts[token] as number;
    let ordinal = 0;
    const count = this.postingCounts[token] as number;
    for (let entry = 0; entry < count; entry++) {
      // Inline varint read: this loop is the index's hot path.
      let value = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = postings[offset++] as number;
        value += (byte & 0x7f) * 2 ** shift;
        shift += 7;
      } while (byte >= 0x80);
      ordinal = entry === 0 ? value : ordinal + value;
      flags[ordinal] = 1;
    }
  }
}
