const ASCII_WORD = /^[a-z]+$/;
/** A doubled final consonant left by `-ing`/`-ed` (`setting` → `sett` → `set`); `ll ss zz` are kept. */
const DOUBLED_CONSONANT = /([b-df-hj-km-np-rtv-z])\1$/;

/**
 * A light English stemmer for keyword ranking. It folds plurals (in the spirit of Harman's
 * "S-stemmer", 1991), so `images` ~ `image`, `policies` ~ `policy`, `addresses` ~ `address`, and
 * then the regular verb endings `-ing`, `-ed` and a final `-e`, so `authenticating` ~
 * `authenticate` ~ `authenticated` (questions say what a user does, pages name the feature).
 * Short words are left alone (`-ing` on 7 letters or more, `-ed` and `-e` on 6 or more: `string`,
 * `used`, `note` stay), as are words that only look plural (`status`, `access`, `analysis`), words
 * of three letters or fewer and anything not plain ASCII letters (identifiers, other languages).
 * It never goes further (no `-ation`, `-al`: a full Porter stemmer maps `general` and `generate`
 * together). Every form is stripped of a suffix only, so the stem is a prefix of the word, which
 * `stemNeedle` relies on.
 */
export function stemEnglish(word: string): string {
  const singular = foldPlural(word);
  if (singular.length <= 4 || !ASCII_WORD.test(singular)) return singular;
  let stem = singular;
  if (stem.length >= 7 && stem.endsWith("ing")) stem = stem.slice(0, -3);
  else if (stem.length >= 6 && stem.endsWith("ed")) stem = stem.slice(0, -2);
  else if (stem.length >= 6 && stem.endsWith("e")) stem = stem.slice(0, -1);
  if (stem !== singular && DOUBLED_CONSONANT.test(stem)) stem = stem.slice(0, -1);
  return stem;
}

function foldPlural(word: string): string {
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
