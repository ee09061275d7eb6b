const ASCII_WORD = /^[a-z]+$/;

/**
 * A light English stemmer for keyword ranking: it folds plurals only (in the spirit of Harman's
 * "S-stemmer", 1991), so `images` ~ `image`, `policies` ~ `policy`, `addresses` ~ `address`. Plural
 * folding gains most of what stemming gains for short queries while merging no unrelated words
 * (a full Porter stemmer maps `general` and `generate` together). Words that only look plural are
 * kept (`status`, `access`, `analysis`), as are words of three letters or fewer and anything not
 * plain ASCII letters (identifiers, other languages).
 */
export function stemEnglish(word: string): string {
  if (word.length <= 3 || !ASCII_WORD.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4 && !/[ae]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

/**
 * A lower-cased substring held by every word `stemEnglish` maps to `stem`: the stem itself, or
 * for a stem in `y` (whose plural is `…ies`) the stem without it. A database that can only match
 * substrings finds with it a superset of the chunks holding any form of the word.
 */
export function stemNeedle(stem: string): string {
  return stem.length > 3 && ASCII_WORD.test(stem) && stem.endsWith("y") ? stem.slice(0, -1) : stem;
}
