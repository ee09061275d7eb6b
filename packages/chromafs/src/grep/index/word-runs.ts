/**
 * The grep index's notion of a word: a maximal run of letters, marks, digits and `_`. Any string
 * that contains a literal contains each of the literal's word runs inside one of its own word
 * runs (a run of the literal can only grow at its ends in the text around it), so the chunks
 * holding, for every run of the literal, a word that contains it are a superset of the chunks
 * holding the literal. Case folding (`foldCase`) applies per code point afterwards, which keeps
 * that true for case-insensitive matching as well.
 */
export const WORD_RUN = /[\p{L}\p{M}\p{N}_]+/gu;

/** The word runs of `text`, case-folded, in order (repeats kept). */
export function wordRuns(text: string): string[] {
  return (text.match(WORD_RUN) ?? []).map(foldCase);
}

const folded = new Map<number, string>();

/**
 * One representative per case class, code point by code point: `s`, `S` and `ſ` all become `s`,
 * `K` (Kelvin sign) `k`, `ς` `σ`. Both regex engines grep's candidates must cover (ECMAScript's
 * with `i` and `u`/`v`, Rust's `(?i)`) compare under Unicode simple case folding, whose classes
 * lower(upper(c)) maps to one code point; a code point whose mapping is not a single code point
 * keeps its own lower case (or itself). Merging more than the engines do only widens candidates.
 * Context-free on purpose: `toLowerCase` of a whole string turns a final `Σ` into `ς`, which a
 * literal cut from the middle of that word would not.
 */
export function foldCase(word: string): string {
  if (/^[\p{ASCII}]*$/u.test(word)) return word.toLowerCase();
  let out = "";
  for (const char of word) {
    const point = char.codePointAt(0) as number;
    let fold = folded.get(point);
    if (fold === undefined) {
      fold = foldCodePoint(char);
      folded.set(point, fold);
    }
    out += fold;
  }
  return out;
}

/**
 * Case pairs Unicode's simple folding joins that lower(upper(c)) doesn't (Unicode 15.1 added
 * them): ΐ and ΰ spelled with their other code points, ſt and st ligatures.
 */
const FOLD_EXCEPTIONS = new Map([
  ["\u1fd3", "\u0390"],
  ["\u1fe3", "\u03b0"],
  ["\ufb05", "\ufb06"],
]);

function foldCodePoint(char: string): string {
  const exception = FOLD_EXCEPTIONS.get(char);
  if (exception !== undefined) return exception;
  const upper = char.toUpperCase();
  if (isOneCodePoint(upper)) {
    const lower = upper.toLowerCase();
    if (isOneCodePoint(lower)) return lower;
  }
  const lower = char.toLowerCase();
  return isOneCodePoint(lower) ? lower : char;
}

function isOneCodePoint(text: string): boolean {
  return text.length === 1 || (text.length === 2 && (text.codePointAt(0) as number) > 0xffff);
}
