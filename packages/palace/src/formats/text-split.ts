/**
 * Cutting text that is too long for one drawer into verbatim pieces: at paragraph breaks first,
 * then line breaks, then sentence ends, then spaces. Only a single word longer than the cap (a
 * URL, a base64 blob) is ever cut inside, and then at a code point boundary. Pieces are slices of
 * the original without the blank lines around them (a first line keeps its indentation), in
 * order, each at most `maxChars` long.
 */

export type TextRange = readonly [start: number, end: number];

/** Where a unit may end, coarsest first: the separator's end is where the next unit starts. */
const BOUNDARIES = [/\n(?:[ \t]*\n)+/g, /\n/g, /(?<=[.!?。！？]["'”’)\]]*)\s+/g, /\s+/g];

export function splitText(text: string, maxChars: number): string[] {
  return splitRanges(text, 0, text.length, maxChars).map(([start, end]) => text.slice(start, end));
}

export function splitRanges(text: string, start: number, end: number, maxChars: number): TextRange[] {
  if (!(maxChars >= 1)) throw new RangeError(`maxChars must be at least 1, got ${maxChars}`);
  const ranges: TextRange[] = [];
  split(text, start, end, maxChars, 0, ranges);
  return ranges;
}

function split(text: string, start: number, end: number, max: number, level: number, out: TextRange[]): void {
  const trimmed = trim(text, start, end);
  if (trimmed === undefined) return;
  [start, end] = trimmed;
  if (end - start <= max) {
    out.push([start, end]);
    return;
  }
  const boundary = BOUNDARIES[level];
  if (boundary === undefined) {
    hardCut(text, start, end, max, out);
    return;
  }
  // Units are [unitStart, nextUnitStart); pack as many as fit, recurse into one that alone is too big.
  const units: number[] = [start];
  boundary.lastIndex = start;
  for (let match = boundary.exec(text); match !== null && match.index < end; match = boundary.exec(text)) {
    if (match[0].length === 0) {
      boundary.lastIndex++;
      continue;
    }
    const next = match.index + match[0].length;
    if (next < end) units.push(next);
  }
  units.push(end);
  let pieceStart = units[0]!;
  let pieceEnd = pieceStart;
  const flush = () => {
    if (pieceEnd > pieceStart) split(text, pieceStart, pieceEnd, max, level + 1, out);
  };
  for (let index = 0; index + 1 < units.length; index++) {
    const unitStart = units[index]!;
    const unitEnd = units[index + 1]!;
    const contentEnd = trimEnd(text, unitStart, unitEnd);
    if (contentEnd - pieceStart <= max) {
      pieceEnd = contentEnd;
      continue;
    }
    flush();
    pieceStart = unitStart;
    pieceEnd = contentEnd;
  }
  flush();
}

function hardCut(text: string, start: number, end: number, max: number, out: TextRange[]): void {
  for (let at = start; at < end; ) {
    let next = Math.min(end, at + max);
    // Never leave half of a surrogate pair at either side of a cut.
    if (next < end && isLowSurrogate(text.charCodeAt(next)) && next - 1 > at) next--;
    out.push([at, next]);
    at = next;
  }
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Drops blank lines around the range; a first line's indentation is part of the text (code). */
function trim(text: string, start: number, end: number): TextRange | undefined {
  end = trimEnd(text, start, end);
  let at = start;
  while (at < end && /\s/.test(text[at]!)) {
    if (text[at] === "\n") start = at + 1;
    at++;
  }
  return at < end ? [start, end] : undefined;
}

function trimEnd(text: string, start: number, end: number): number {
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return end;
}
