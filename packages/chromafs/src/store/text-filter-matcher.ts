import type { TextFilter } from "./doc-store.js";

/**
 * A `TextFilter` evaluated in process, for stores that hold page text themselves. Regex filters
 * run with the `u` flag so `.` and classes see whole code points, as Rust's regex crate does.
 */
export function compileTextFilter(filter: TextFilter): (text: string) => boolean {
  if (filter.kind === "contains") {
    if (!filter.caseInsensitive) return (text) => text.includes(filter.text);
    const needle = filter.text.toLowerCase();
    return (text) => text.toLowerCase().includes(needle);
  }
  const regex = new RegExp(filter.pattern, filter.caseInsensitive ? "iu" : "u");
  return (text) => regex.test(text);
}
