/**
 * Words for keyword ranking: runs of letters, combining marks, digits and `_`, lower-cased.
 * Chinese and Japanese put no spaces between words, so a run of ideographs or kana becomes its
 * overlapping character bigrams ("配置域名" → 配置 置域 域名), the usual unit for indexing them
 * without a dictionary; a run of one or two such characters stays whole. A word that mixes
 * scripts ("api文档") is split where the script changes. Text is not Unicode-normalised: the
 * words are substrings of the lower-cased text, so they can be counted in it.
 */

const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
/** Han, Hiragana, Katakana, and the prolonged sound mark ー (Common script) inside katakana words. */
const CJK_SEGMENT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]+/gu;
const CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]/u;

export interface TokenizeOptions {
  /** Drop non-CJK words shorter than this many characters (code points); default 1. */
  minLength?: number;
}

/** Every word of `text` in order, repeats kept (see the module comment for what a word is). */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const minLength = options.minLength ?? 1;
  const words: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    for (const segment of match[0].match(CJK_SEGMENT) ?? []) {
      if (CJK.test(segment)) words.push(...bigrams(segment));
      else if (minLength <= 1 || [...segment].length >= minLength) words.push(segment);
    }
  }
  return words;
}

function bigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length <= 2) return [run];
  return chars.slice(0, -1).map((char, index) => char + chars[index + 1]);
}

/** Common English function words: they match nearly every document and rank nothing. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  "a an and are as at be by can do does for from how i if in into is it me my of on or our so that the this to use using we what when where which who why with you your".split(
    " ",
  ),
);

export interface QueryTermsOptions {
  /** Default 2: one-letter words say little in a query. */
  minLength?: number;
  /** Dropped unless nothing else remains; default `ENGLISH_STOP_WORDS`. */
  stopWords?: ReadonlySet<string>;
  /** Keep at most this many terms (the first ones); default all. */
  maxTerms?: number;
}

/** The distinct words of a query, in order of first appearance, stop words dropped when others remain. */
export function queryTerms(query: string, options: QueryTermsOptions = {}): string[] {
  const all = [...new Set(tokenize(query, { minLength: options.minLength ?? 2 }))];
  const stopWords = options.stopWords ?? ENGLISH_STOP_WORDS;
  const content = all.filter((word) => !stopWords.has(word));
  return (content.length > 0 ? content : all).slice(0, options.maxTerms ?? all.length);
}
