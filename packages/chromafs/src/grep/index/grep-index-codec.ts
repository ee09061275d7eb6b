import { gunzipSync, gzipSync } from "node:zlib";
import { GrepIndexError } from "../../errors.js";
import type { GrepIndexData } from "./grep-index-builder.js";

/** Version of the stored index layout; a reader ignores (never misreads) any other. */
export const GREP_INDEX_FORMAT = 1;

interface Header {
  format: number;
  digest: string;
  tokens: number;
  chunks: number;
  vocabularyBytes: number;
  postingsBytes: number;
  linesBytes: number;
}

/**
 * The index as stored: base64 of gzip of `[u32 LE header length][header JSON][vocabulary: the
 * tokens joined by \n, UTF-8][postings][lines]`. One string, cut into records by the caller.
 */
export function encodeGrepIndex(data: GrepIndexData): string {
  const vocabulary = Buffer.from(data.tokens.join("\n"), "utf8");
  const header: Header = {
    format: GREP_INDEX_FORMAT,
    digest: data.digest,
    tokens: data.tokens.length,
    chunks: data.chunks,
    vocabularyBytes: vocabulary.length,
    postingsBytes: data.postings.length,
    linesBytes: data.lines.length,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length);
  const raw = Buffer.concat([length, headerBytes, vocabulary, data.postings, data.lines]);
  return gzipSync(raw, { level: 6 }).toString("base64");
}

/** The stored string → its parts, checked for size and shape (`GrepIndex` checks the postings). */
export function decodeGrepIndex(
  document: string,
  maxBytes: number,
): { header: Header; vocabulary: string; postings: Uint8Array; lines: Uint8Array } {
  let raw: Buffer;
  try {
    raw = gunzipSync(Buffer.from(document, "base64"), { maxOutputLength: maxBytes });
  } catch (error) {
    throw new GrepIndexError(`the grep index is not gzip+base64 or is over ${maxBytes} bytes`, error);
  }
  if (raw.length < 4) throw new GrepIndexError("the grep index is truncated");
  const headerLength = raw.readUInt32LE(0);
  if (4 + headerLength > raw.length) throw new GrepIndexError("the grep index header is truncated");
  let header: Header;
  try {
    header = JSON.parse(raw.subarray(4, 4 + headerLength).toString("utf8")) as Header;
  } catch (error) {
    throw new GrepIndexError("the grep index header is not JSON", error);
  }
  if (header?.format !== GREP_INDEX_FORMAT) {
    throw new GrepIndexError(
      `the grep index has format ${String(header?.format)}, this reads ${GREP_INDEX_FORMAT}`,
    );
  }
  const sizes = [
    header.tokens,
    header.chunks,
    header.vocabularyBytes,
    header.postingsBytes,
    header.linesBytes,
  ];
  if (typeof header.digest !== "string" || !sizes.every((size) => Number.isSafeInteger(size) && size >= 0)) {
    throw new GrepIndexError("the grep index header is malformed");
  }
  const start = 4 + headerLength;
  const postingsStart = start + header.vocabularyBytes;
  const linesStart = postingsStart + header.postingsBytes;
  if (linesStart + header.linesBytes !== raw.length) {
    throw new GrepIndexError("the grep index's sections don't add up to its size");
  }
  return {
    header,
    vocabulary: raw.subarray(start, postingsStart).toString("utf8"),
    postings: raw.subarray(postingsStart, linesStart),
    lines: raw.subarray(linesStart),
  };
}
