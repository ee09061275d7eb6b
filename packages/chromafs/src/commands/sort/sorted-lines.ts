import {
  codePointKey,
  fromCodePointKey,
  keyText,
  keyValue,
  type SortSpec,
  utf8ByteString,
} from "./sort-keys.js";

/** A line with what GNU compares of it, worked out once: each key's value, then the whole line (as UTF-8 bytes). */
interface Row {
  line: string;
  keys: string[];
  whole: string;
}

const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/**
 * The lines in GNU sort's order for `spec` (stable, as GNU's merge sort), and with `unique` only
 * the first of each run whose keys are equal. Every key is computed once per line, not once per
 * comparison (decorate, sort, undecorate): a plain `sort` compares the `codePointKey`s with the
 * engine's own string sort, anything else compares precomputed rows.
 */
export function sortedLines(lines: readonly string[], spec: SortSpec, unique: boolean): string[] {
  const plain = spec.keys.length === 0 && !spec.global.numeric && !spec.global.fold && !spec.global.blanks;
  if (plain) return sortedPlain(lines, spec.global.reverse, unique);
  const keyFlags = spec.keys.length > 0 ? spec.keys.map((key) => key.flags) : [spec.global];
  const rows: Row[] = lines.map((line) => {
    const bytes = utf8ByteString(line);
    return {
      line,
      keys:
        spec.keys.length > 0
          ? spec.keys.map((key) => keyValue(keyText(bytes, key, spec.separator), key.flags, false))
          : [keyValue(bytes, spec.global, spec.global.blanks)],
      whole: spec.noLastResort ? "" : bytes,
    };
  });
  const compareKeys = (a: Row, b: Row) => {
    for (let i = 0; i < keyFlags.length; i++) {
      const result = order(a.keys[i]!, b.keys[i]!);
      if (result !== 0) return keyFlags[i]!.reverse ? -result : result;
    }
    return 0;
  };
  rows.sort((a, b) => {
    const result = compareKeys(a, b);
    if (result !== 0 || spec.noLastResort) return result;
    return spec.global.reverse ? -order(a.whole, b.whole) : order(a.whole, b.whole);
  });
  const kept = unique ? rows.filter((row, i) => i === 0 || compareKeys(rows[i - 1]!, row) !== 0) : rows;
  return kept.map((row) => row.line);
}

/**
 * Whole lines by code point: their `codePointKey`s in the engine's own string sort (no comparator
 * to call), then spelled back. Lines that compare equal are identical, so their order cannot show.
 */
function sortedPlain(lines: readonly string[], reverse: boolean, unique: boolean): string[] {
  const sorted = lines.map(codePointKey).sort();
  if (reverse) sorted.reverse();
  const kept = unique ? sorted.filter((key, i) => i === 0 || sorted[i - 1] !== key) : sorted;
  return kept.map(fromCodePointKey);
}
