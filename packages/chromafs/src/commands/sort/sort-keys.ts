/**
 * GNU sort's comparison under LC_ALL=C.UTF-8 (which collates by code point, the UTF-8 byte
 * order): keys (`-k F[.C][opts][,F[.C][opts]]`), fields split at `-t` or at each run of blanks
 * (a field keeps its leading blanks), `n` numeric, `f` fold case (ASCII), `b` skip leading
 * blanks, `r` reverse; global options apply to keys that carry none.
 */
export interface KeyFlags {
  numeric: boolean;
  fold: boolean;
  blanks: boolean;
  reverse: boolean;
}

export interface SortKey {
  startField: number;
  startChar: number;
  /** 0: to the end of the line. */
  endField: number;
  /** 0: to the end of the end field. */
  endChar: number;
  flags: KeyFlags;
  /** Whether `b` applies to the start and end positions (the key's own or the global one). */
  startBlanks: boolean;
  endBlanks: boolean;
}

export interface SortSpec {
  keys: SortKey[];
  global: KeyFlags;
  separator: string | null;
  /** `-s` or `-u`: no last-resort comparison of whole lines. */
  noLastResort: boolean;
}

/**
 * Parses one `-k` value: the key, GNU's error for a zero field or start offset, or null for a
 * spelling or flag not modelled here (just-bash's sort then answers).
 */
export function parseKey(text: string, global: KeyFlags): SortKey | { error: string } | null {
  const match = /^(\d+)(?:\.(\d+))?([a-zA-Z]*)(?:,(\d+)(?:\.(\d+))?([a-zA-Z]*))?$/.exec(text);
  if (!match) return null;
  const startField = Number(match[1]);
  if (startField === 0 || (match[4] !== undefined && Number(match[4]) === 0))
    return { error: `field number is zero: invalid field specification \u2018${text}\u2019` };
  if (match[2] !== undefined && Number(match[2]) === 0)
    return { error: `character offset is zero: invalid field specification \u2018${text}\u2019` };
  const startOpts = match[3] ?? "";
  const endOpts = match[6] ?? "";
  if (!/^[bfnr]*$/.test(startOpts + endOpts)) return null;
  const own = startOpts + endOpts;
  const flags: KeyFlags =
    own === ""
      ? { ...global }
      : {
          numeric: own.includes("n"),
          fold: own.includes("f"),
          blanks: own.includes("b"),
          reverse: own.includes("r"),
        };
  return {
    startField,
    startChar: match[2] ? Number(match[2]) : 1,
    endField: match[4] ? Number(match[4]) : 0,
    endChar: match[5] ? Number(match[5]) : 0,
    flags,
    startBlanks: own === "" ? global.blanks : startOpts.includes("b"),
    endBlanks: own === "" ? global.blanks : endOpts.includes("b"),
  };
}

const isBlank = (char: string | undefined) => char === " " || char === "\t";

/** Start offsets of each field and the line length, GNU's way. */
function fieldStarts(line: string, separator: string | null): number[] {
  const starts = [0];
  if (separator !== null) {
    for (let at = line.indexOf(separator); at !== -1; at = line.indexOf(separator, at + separator.length)) {
      starts.push(at + separator.length);
    }
    return starts;
  }
  let i = 0;
  for (;;) {
    while (i < line.length && isBlank(line[i])) i++;
    while (i < line.length && !isBlank(line[i])) i++;
    if (i >= line.length) return starts;
    starts.push(i);
  }
}

function fieldEnd(line: string, starts: readonly number[], field: number, separator: string | null): number {
  const next = starts[field];
  if (next === undefined) return line.length;
  return separator === null ? next : next - separator.length;
}

function skipBlanks(line: string, at: number, limit: number): number {
  while (at < limit && isBlank(line[at])) at++;
  return at;
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * `line`'s UTF-8 bytes, one character per byte (latin1): what GNU's keys are cut from and compared
 * as. Offsets (`.C`) then count bytes, a key may start or end inside a character as GNU's does,
 * and `<` on these strings is byte order, which is code point order. ASCII is its own byte string.
 */
export function utf8ByteString(line: string): string {
  return NON_ASCII.test(line) ? Buffer.from(line, "utf8").toString("latin1") : line;
}

/** The text of `key` in `line` (a `utf8ByteString`, so offsets are bytes). */
export function keyText(line: string, key: SortKey, separator: string | null): string {
  const starts = fieldStarts(line, separator);
  let start: number;
  const fieldStart = starts[key.startField - 1];
  if (fieldStart === undefined) start = line.length;
  else {
    // GNU's begfield: blanks and characters are skipped up to the end of the line, not the field.
    start = key.startBlanks ? skipBlanks(line, fieldStart, line.length) : fieldStart;
    start = Math.min(start + key.startChar - 1, line.length);
  }
  let end: number;
  if (key.endField === 0) end = line.length;
  else {
    const endStart = starts[key.endField - 1];
    if (endStart === undefined) end = line.length;
    else {
      if (key.endChar === 0) end = fieldEnd(line, starts, key.endField, separator);
      else {
        // GNU's limfield: as for the start, bounded by the end of the line.
        const from = key.endBlanks ? skipBlanks(line, endStart, line.length) : endStart;
        end = Math.min(from + key.endChar, line.length);
      }
    }
  }
  return end <= start ? "" : line.slice(start, end);
}

/** UTF-16 code unit order mapped to code point order (surrogates above U+E000..U+FFFF). */
function weight(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit >= 0xd800 ? unit + 0x2000 : unit;
}

export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return weight(x) - weight(y);
  }
  return a.length - b.length;
}

const NUMBER = /^[ \t]*(-?)0*(\d*)(?:\.(\d*))?/;

/**
 * GNU `-n`'s value of a key, as a string whose order (`<`) is the numbers' order, exactly, at any
 * length (GNU compares digit strings, not doubles): leading blanks, an optional minus, digits, a
 * fraction; anything else is 0. Zero is "1"; a positive number "2", its integer part's length
 * (10 digits), its digits and its fraction without trailing zeros; a negative one "0" and the
 * same with every digit complemented and a closing "~", so a longer magnitude sorts first.
 */
export function numericKey(text: string): string {
  const match = NUMBER.exec(text)!;
  const whole = match[2] ?? "";
  const fraction = (match[3] ?? "").replace(/0+$/, "");
  if (whole === "" && fraction === "") return "1";
  const magnitude = `${String(whole.length).padStart(10, "0")}${whole}${fraction}`;
  if (match[1] !== "-") return `2${magnitude}`;
  return `0${magnitude.replace(/\d/g, (digit) => String(9 - Number(digit)))}~`;
}

const HIGH_UNIT = /[\uD800-\uFFFF]/;
const HIGH_UNITS = /[\uD800-\uFFFF]/g;

/**
 * `text` respelled so that the engine's own string order (UTF-16 code units) is its code point
 * order: surrogates move above U+E000..U+FFFF (`weight`). Comparing keys made once per line with
 * `<` is several times faster than a `charCodeAt` loop per comparison, more so in a process where
 * just-bash's defense-in-depth has run. Text with nothing at U+D800 or above is its own key. The
 * respelling is one-to-one on code units, so `fromCodePointKey` gives the text back.
 */
export function codePointKey(text: string): string {
  if (!HIGH_UNIT.test(text)) return text;
  return text.replace(HIGH_UNITS, (unit) => String.fromCharCode(weight(unit.charCodeAt(0))));
}

/** The text a `codePointKey` was made from. */
export function fromCodePointKey(key: string): string {
  if (!HIGH_UNIT.test(key)) return key;
  return key.replace(HIGH_UNITS, (unit) => {
    const code = unit.charCodeAt(0);
    return String.fromCharCode(code >= 0xf800 ? code - 0x2000 : code + 0x800);
  });
}

/**
 * What a key of `flags` compares in `text` (a `utf8ByteString`): its `numericKey` (`n`), or its
 * bytes with ASCII case folded (`f`). Leading blanks go only with `trimBlanks`: a `-k` key's `b`
 * moves its start and end (`keyText`), it does not trim the text; a global `-b` without keys trims
 * the line.
 */
export function keyValue(text: string, flags: KeyFlags, trimBlanks: boolean): string {
  if (flags.numeric) return numericKey(text);
  const value = trimBlanks ? text.replace(/^[ \t]+/, "") : text;
  return flags.fold ? value.replace(/[a-z]+/g, (run) => run.toUpperCase()) : value;
}
