/**
 * The words of a question worth grepping for: lowercased, without English function words and
 * question words, cut to a stem so a substring search finds the word's other forms ("domains"
 * → "domain" also finds "domain"; "deploying" → "deploy"). Longest words first, since longer
 * words are usually the specific ones. Knows nothing about any corpus.
 */
export function keyTerms(question: string, max: number): string[] {
  const words = question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const stems: string[] = [];
  for (const word of words) {
    if (word.length < 3 || STOPWORDS.has(word)) continue;
    const stem = stemOf(word);
    if (!stems.includes(stem)) stems.push(stem);
  }
  // Stable: equal lengths keep the question's order.
  return stems
    .map((stem, index) => ({ stem, index }))
    .sort((a, b) => b.stem.length - a.stem.length || a.index - b.index)
    .slice(0, max)
    .map(({ stem }) => stem);
}

/** A crude suffix strip; good enough for substring search, never shorter than four letters. */
export function stemOf(word: string): string {
  for (const suffix of ["ies", "ing", "ed", "es", "s"]) {
    if (!word.endsWith(suffix) || word.endsWith("ss")) continue;
    const stem = word.slice(0, -suffix.length);
    if (stem.length >= 4) return stem;
  }
  return word;
}

const STOPWORDS = new Set(
  (
    "the and for are but not you your yours with without from into onto that this these those there " +
    "what which who whom whose when where why how can could should would will shall may might must " +
    "does did doing done have has had having was were been being its it's than then them they their " +
    "about above after again all also any because before below between both each few more most other " +
    "some such only own same very just over under out off once here use using used want need get " +
    "make like one two way ways per via our ours his her she him let lets any anything something " +
    "able tell show give know see look find set " +
    // Words about documentation itself: every question to a docs assistant is about the docs, so
    // they tell no page from another, and grepping them reads most of the corpus.
    "doc docs documentation page pages site"
  ).split(" "),
);
