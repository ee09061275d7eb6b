const WORD = /[\p{L}\p{N}]+/gu;

/**
 * Share (0–1) of the query's words found in a page's file name or title: on a docs site the page
 * named after what you ask for (`custom-domain.mdx`, "Custom domain") is the canonical answer,
 * even when longer pages mention the words more often. A word matches when equal, or when one
 * starts with the other and the shorter has four letters or more (`domain` ~ `domains`).
 */
export function titleMatch(path: string, title: string | undefined, words: readonly string[]): number {
  if (words.length === 0) return 0;
  const name = (path.split("/").pop() ?? "").replace(/\.[^.]*$/, "");
  const named = new Set(`${name} ${title ?? ""}`.toLowerCase().match(WORD) ?? []);
  const matches = (word: string) =>
    named.has(word) ||
    [...named].some((other) => {
      const [short, long] = other.length < word.length ? [other, word] : [word, other];
      return short.length >= 4 && long.startsWith(short);
    });
  return words.filter(matches).length / words.length;
}

/** How much a full title match multiplies a page's score (half the words: half as much more). */
export const TITLE_MATCH_BOOST = 1;
