/**
 * Search snippets: the line of a chunk that best shows why it matched, never boilerplate. A
 * front-matter fence, a code fence, a bare tag like `</div>` or a line without a letter or digit
 * is never chosen; a heading is followed by the text under it; a long line is cut to a window
 * around its first matching word.
 */

/** Case-insensitive occurrences: how many distinct `terms` (lower-cased) `text` holds. */
export function termsIn(text: string, terms: readonly string[]): number {
  const lower = text.toLowerCase();
  let found = 0;
  for (const term of terms) if (lower.includes(term)) found++;
  return found;
}

interface Line {
  text: string;
  frontMatter: boolean;
  heading: boolean;
}

const BOILERPLATE = /^(?:-{3,}|\+{3,}|`{3,}.*|~{3,}.*|<\/?[A-Za-z][^>]*>|[-*_=#|:\s]*)$/;
const HAS_WORD = /[\p{L}\p{N}]/u;
const HEADING = /^#{1,6}\s+/;
/** Front-matter keys whose values are no prose (`groups: [a]`, `openapi: GET /x`, `icon: x`). */
const FRONT_MATTER_TEXT_KEYS = /^(title|sidebarTitle|description|summary|keywords):/;

/** The chunk's lines worth showing: front-matter values (text keys only), headings, prose. */
function contentLines(text: string): Line[] {
  const raw = text.split("\n");
  let frontMatterEnd = -1;
  if (raw[0]?.trim() === "---") {
    const close = raw.findIndex((line, index) => index > 0 && line.trim() === "---");
    if (close > 0) frontMatterEnd = close;
  }
  const lines: Line[] = [];
  raw.forEach((line, index) => {
    const trimmed = line.trim();
    if (BOILERPLATE.test(trimmed) || !HAS_WORD.test(trimmed)) return;
    if (index <= frontMatterEnd) {
      const key = FRONT_MATTER_TEXT_KEYS.exec(trimmed)?.[1];
      if (key === undefined) return;
      // A title reads like a heading: the description under it is shown with it.
      const title = key === "title" || key === "sidebarTitle";
      lines.push({
        text: unquote(trimmed.slice(key.length + 1).trim()),
        frontMatter: !title,
        heading: title,
      });
      return;
    }
    const heading = HEADING.test(trimmed);
    lines.push({ text: heading ? trimmed.replace(HEADING, "") : trimmed, frontMatter: false, heading });
  });
  return lines;
}

function unquote(value: string): string {
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}

/**
 * The snippet of `text` for a query's lower-cased `terms`, at most `maxChars` characters: the
 * line holding the most distinct terms (prose before a heading before front matter on a tie,
 * then the earliest); a heading gets the line under it appended. Without any term: the first
 * prose line, else the first heading or title. Empty only when the text has no words at all.
 */
export function bestSnippet(text: string, terms: readonly string[], maxChars: number): string {
  const lines = contentLines(text);
  let chosen = -1;
  let chosenRank = -1;
  lines.forEach((line, index) => {
    const found = termsIn(line.text, terms);
    const kind = line.frontMatter ? 0 : line.heading ? 1 : 2;
    // With no term found anywhere, prose still wins over headings and titles.
    const rank = found * 3 + kind;
    if (rank > chosenRank) {
      chosen = index;
      chosenRank = rank;
    }
  });
  const line = lines[chosen];
  if (!line) return "";
  let snippet = line.text;
  const next = lines[chosen + 1];
  if (line.heading && next && !next.heading) snippet = `${snippet}: ${next.text}`;
  return windowAround(snippet, terms, maxChars);
}

/**
 * `text` whitespace-collapsed and cut to `maxChars` characters (code points) around the first
 * occurrence of any of `terms`, with `…` where it was cut.
 */
export function windowAround(text: string, terms: readonly string[], maxChars: number): string {
  const chars = [...text.replace(/\s+/g, " ").trim()];
  if (chars.length <= maxChars) return chars.join("");
  const lower = chars.join("").toLowerCase();
  let first = -1;
  for (const term of terms) {
    const at = lower.indexOf(term);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  // indexOf counts UTF-16 units; the window counts code points.
  const firstChar = first === -1 ? 0 : [...lower.slice(0, first)].length;
  let start = Math.max(0, Math.min(firstChar - Math.floor(maxChars / 4), chars.length - maxChars + 1));
  if (start > 0) {
    // Start at a word: after the nearest space before the computed start, if one is close.
    const space = chars.lastIndexOf(" ", start);
    if (space !== -1 && start - space < 20 && space + 1 <= firstChar) start = space + 1;
  }
  const head = start > 0 ? "…" : "";
  const room = maxChars - head.length;
  const body = chars.slice(start, start + room);
  if (start + room < chars.length) body[body.length - 1] = "…";
  return head + body.join("");
}
