import type { TextFilter } from "./doc-store.js";
import { regexLiteral } from "./regex-literal.js";

/** The literals a text must hold one of to pass the filter; null when the filter names none. */
export function filterLiterals(filter: TextFilter): readonly string[] | null {
  const literals = filter.kind === "contains" ? [filter.text] : filter.literals;
  return literals && literals.length > 0 && !literals.includes("") ? literals : null;
}

/**
 * A `TextFilter` evaluated in process, for stores that hold page text themselves and for grep's
 * line-by-line narrowing. Regex filters run with the `u` flag so `.` and classes see whole code
 * points, as Rust's regex crate does. A case-insensitive string matches when either lower-casing
 * or Unicode case folding (what the server's `(?i)` does) finds it: a filter may be wider than
 * grep, never narrower.
 */
export function compileTextFilter(filter: TextFilter): (text: string) => boolean {
  if (filter.kind === "contains") {
    if (!filter.caseInsensitive) return (text) => text.includes(filter.text);
    const needle = filter.text.toLowerCase();
    const folded = new RegExp(regexLiteral(filter.text), "iu");
    return (text) => text.toLowerCase().includes(needle) || folded.test(text);
  }
  const regex = new RegExp(filter.pattern, filter.caseInsensitive ? "iu" : "u");
  return (text) => regex.test(text);
}
