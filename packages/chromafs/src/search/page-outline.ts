import { bm25TermScore, tokenize } from "@atrium/kit";
import { type TermForm, termCounts } from "./keyword-terms.js";

/** Front-matter keys that summarise a page (the rest, `icon:`, `openapi:`, `groups:`, say nothing). */
const SUMMARY_KEY = /^(?:title|sidebarTitle|description|keywords):(.*)$/;
const HEADING = /^#{1,6}\s/;

/**
 * A page's outline: its file name, its front matter's title, description and keywords, and its
 * headings (outside code blocks) — what the page says it is about, as a field apart from its body (BM25F's idea: a
 * word in a title or heading says more than the same word in running text, and a short summary
 * field is not drowned by a long body). On a docs site the page named and described after the
 * question is usually its answer, even when longer pages mention the words more often.
 */
export function pageOutline(path: string, text: string): string {
  const name = (path.split("/").pop() ?? "").replace(/\.[^.]*$/, "");
  const parts = [name];
  const lines = text.split("\n");
  let frontMatter = lines[0]?.trim() === "---";
  let fence: string | undefined;
  lines.forEach((line, index) => {
    // A `# comment` in a fenced code block is no heading.
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (!frontMatter && (fence || marker)) {
      if (!fence) fence = marker;
      else if (marker?.startsWith(fence)) fence = undefined;
      return;
    }
    if (frontMatter) {
      if (index > 0 && line.trim() === "---") frontMatter = false;
      else {
        const summary = SUMMARY_KEY.exec(line.trim());
        if (summary) parts.push(summary[1] as string);
      }
    } else if (HEADING.test(line)) parts.push(line);
  });
  return parts.join("\n");
}

/**
 * BM25 of each page's outline for query terms with known IDF weights (the chunks' own, so both
 * fields weigh a word alike), outline lengths in words against the average of the outlines given.
 * Pages whose outline holds no term are left out.
 */
export function outlineScores(
  outlines: ReadonlyMap<string, string>,
  idf: ReadonlyMap<string, number>,
  form: TermForm,
): Map<string, number> {
  const pages = [...outlines].map(([page, outline]) => ({
    page,
    counts: termCounts(outline, form),
    length: tokenize(outline).length,
  }));
  const average = pages.reduce((sum, page) => sum + page.length, 0) / Math.max(1, pages.length);
  const scores = new Map<string, number>();
  for (const { page, counts, length } of pages) {
    let score = 0;
    for (const [term, weight] of idf)
      score += bm25TermScore(counts.get(term) ?? 0, weight, average > 0 ? length / average : 1);
    if (score > 0) scores.set(page, score);
  }
  return scores;
}
