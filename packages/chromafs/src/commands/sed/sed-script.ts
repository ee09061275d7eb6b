import { mayPreferShorter } from "../../grep/gnu/gnu-matcher.js";
import { hasBackref, parsePattern, toRegexSource } from "../../grep/gnu/gnu-pattern.js";
import { LongestMatcher } from "../../grep/gnu/longest-match.js";

/**
 * A sed script parsed into commands, for the part of GNU sed ChromaFs runs itself: addresses
 * and ranges of every form GNU has (`N`, `$`, `/re/I`, `\cREc`, `first~step`, `0,/re/`,
 * `addr,+N`, `addr,~N`, `!`), blocks, labels, comments and the commands
 * `p P d = q Q s y n N h H g G x z a i c b t T`. Anything else (`D l r R w W e F v`, `s///w`,
 * `s///e`, `s///m`, `M` addresses) makes the parse answer null, and the caller leaves the command
 * to just-bash's sed.
 */

/** A regex as the script spelled it (empty means "the last regex used") and how to match it. */
export interface SedRegex {
  /** Null for the empty regex `//`, which reuses the last one run. */
  regex: RegExp | null;
  /**
   * POSIX's longest match at the leftmost start, where backtracking could stop short (an
   * alternation or a repeated group: `s/a\|ab/X/` on `ab` replaces `ab`); null otherwise.
   */
  longest: LongestMatcher | null;
}

export type SedAddress =
  | { kind: "line"; line: number }
  | { kind: "last" }
  | { kind: "regex"; regex: SedRegex }
  | { kind: "step"; first: number; step: number };

/** The second address of a range: GNU's forms, including `+N` and `~N`. */
export type SedEndAddress = SedAddress | { kind: "plus"; count: number } | { kind: "multiple"; of: number };

export interface SedCommandBase {
  start?: SedAddress;
  end?: SedEndAddress;
  negated: boolean;
}

export type SedCommand = SedCommandBase &
  (
    | { name: "p" | "P" | "d" | "=" | "n" | "N" | "h" | "H" | "g" | "G" | "x" | "z" }
    /** `b`, `t`, `T` to a label (empty: to the end of the script); `:` defines one. */
    | { name: "b" | "t" | "T" | ":"; label: string }
    /** `a`, `i`, `c` with their text (without its final newline). */
    | { name: "a" | "i" | "c"; text: string }
    | { name: "q" | "Q"; exitCode: number }
    | { name: "{"; body: SedCommand[] }
    | { name: "y"; from: string[]; to: string[] }
    | {
        name: "s";
        regex: SedRegex;
        replacement: string;
        global: boolean;
        /** Replace the Nth match (1 when no number is given); with `global`, the Nth and later. */
        occurrence: number;
        print: boolean;
      }
  );

/** Why a script could not be parsed here; the caller falls back to just-bash's sed. */
class Unsupported extends Error {}

/** sed's `\t` and `\n` in a regex (GNU grep has neither), as the characters themselves. */
function sedEscapes(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "\\" && i + 1 < pattern.length) {
      const next = pattern[++i]!;
      out += next === "t" ? "\t" : next === "n" ? "\n" : `\\${next}`;
    } else out += char;
  }
  return out;
}

function compileSedRegex(reader: Reader, pattern: string, ignoreCase: boolean): SedRegex {
  if (pattern === "") {
    // `//` before any regex: GNU's "no previous regular expression", which just-bash words.
    if (!reader.sawRegex) throw new Unsupported();
    return { regex: null, longest: null };
  }
  reader.sawRegex = true;
  const tree = parsePattern(sedEscapes(pattern), reader.extended ? "extended" : "basic");
  if (!tree) throw new Unsupported();
  try {
    const flags = ignoreCase ? "vi" : "v";
    const longest = !hasBackref(tree) && mayPreferShorter(tree) ? LongestMatcher.build([tree], flags) : null;
    return { regex: new RegExp(toRegexSource(tree), flags), longest };
  } catch {
    throw new Unsupported(); // a back-reference to a group not (yet) opened, say
  }
}

class Reader {
  at = 0;
  sawRegex = false;
  constructor(
    readonly text: string,
    readonly extended: boolean,
  ) {}
  peek(): string | undefined {
    return this.text[this.at];
  }
  next(): string | undefined {
    return this.text[this.at++];
  }
  skipBlanks(): void {
    while (this.peek() === " " || this.peek() === "\t") this.at++;
  }
  number(): number | null {
    const match = /^\d+/.exec(this.text.slice(this.at));
    if (!match) return null;
    this.at += match[0].length;
    return Number(match[0]);
  }
  /**
   * The text up to the next unescaped `delimiter`, with `\delimiter` turned into the delimiter
   * (GNU's reading of `s|a\|b|x|`: a literal `|`) and every other escape kept for the regex.
   */
  delimited(delimiter: string): string {
    let out = "";
    for (;;) {
      const char = this.next();
      if (char === undefined || char === "\n") throw new Unsupported();
      if (char === delimiter) return out;
      if (char === "\\") {
        const escaped = this.next();
        if (escaped === undefined) throw new Unsupported();
        out += escaped === delimiter ? delimiter : escaped === "\n" ? "\n" : `\\${escaped}`;
      } else out += char;
    }
  }
}

function parseRegexAddress(reader: Reader, delimiter: string): SedAddress {
  const pattern = reader.delimited(delimiter);
  let ignoreCase = false;
  for (;;) {
    const flag = reader.peek();
    if (flag === "I") ignoreCase = true;
    else if (flag === "M") throw new Unsupported();
    else break;
    reader.at++;
  }
  return { kind: "regex", regex: compileSedRegex(reader, pattern, ignoreCase) };
}

function parseAddress(reader: Reader): SedAddress | undefined {
  const char = reader.peek();
  if (char === "$") {
    reader.at++;
    return { kind: "last" };
  }
  if (char === "/") {
    reader.at++;
    return parseRegexAddress(reader, "/");
  }
  if (char === "\\") {
    reader.at++;
    const delimiter = reader.next();
    if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") throw new Unsupported();
    return parseRegexAddress(reader, delimiter);
  }
  const line = reader.number();
  if (line === null) return undefined;
  if (reader.peek() === "~") {
    reader.at++;
    const step = reader.number();
    if (step === null) throw new Unsupported();
    return { kind: "step", first: line, step };
  }
  return { kind: "line", line };
}

function parseEndAddress(reader: Reader): SedEndAddress {
  const char = reader.peek();
  if (char === "+" || char === "~") {
    reader.at++;
    const count = reader.number();
    if (count === null) throw new Unsupported();
    return char === "+" ? { kind: "plus", count } : { kind: "multiple", of: count };
  }
  const address = parseAddress(reader);
  // GNU reads `first~step` as a second address as a line number (`first`); rare enough to leave.
  if (!address || address.kind === "step") throw new Unsupported();
  return address;
}

/** The replacement's text as written (escapes are read when it is applied, `sed-run.ts`). */
function parseSubstitute(reader: Reader): SedCommand & { name: "s" } {
  const delimiter = reader.next();
  if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") throw new Unsupported();
  const pattern = reader.delimited(delimiter);
  // The replacement keeps `\delimiter` as an escape, which applies as the delimiter itself.
  let replacement = "";
  for (;;) {
    const char = reader.next();
    if (char === undefined) throw new Unsupported();
    if (char === delimiter) break;
    if (char === "\\") {
      const escaped = reader.next();
      if (escaped === undefined) throw new Unsupported();
      replacement += escaped === delimiter ? (delimiter === "&" ? "\\&" : delimiter) : `\\${escaped}`;
    } else replacement += char;
  }
  let global = false;
  let print = false;
  let ignoreCase = false;
  let occurrence: number | null = null;
  for (;;) {
    const flag = reader.peek();
    if (flag === "g") global = true;
    else if (flag === "p") print = true;
    else if (flag === "i" || flag === "I") ignoreCase = true;
    else if (flag !== undefined && /\d/.test(flag)) {
      if (occurrence !== null) throw new Unsupported();
      occurrence = reader.number();
      if (occurrence === 0) throw new Unsupported();
      continue;
    } else break;
    reader.at++;
  }
  return {
    name: "s",
    negated: false,
    regex: compileSedRegex(reader, pattern, ignoreCase),
    replacement,
    global,
    occurrence: occurrence ?? 1,
    print,
  };
}

/** `y/abc/xyz/`: the two sides as characters, `\\`, `\n` and `\delimiter` read as GNU reads them. */
function parseTransliterate(reader: Reader): SedCommand & { name: "y" } {
  const delimiter = reader.next();
  if (delimiter === undefined || delimiter === "\n" || delimiter === "\\") throw new Unsupported();
  const side = () => {
    const chars: string[] = [];
    for (const part of reader.delimited(delimiter).matchAll(/\\(.)|(.)/gsu)) {
      if (part[1] === undefined) chars.push(part[2]!);
      else if (part[1] === "n") chars.push("\n");
      else if (part[1] === "t") chars.push("\t");
      else if (part[1] === "\\") chars.push("\\");
      else throw new Unsupported();
    }
    return chars;
  };
  const from = side();
  const to = side();
  if (from.length !== to.length) throw new Unsupported();
  return { name: "y", negated: false, from, to };
}

/** A label after `b`, `t`, `T` or `:`: up to `;` or a newline, as GNU 4.9 reads it. */
function parseLabel(reader: Reader): string {
  reader.skipBlanks();
  let label = "";
  while (reader.peek() !== undefined && reader.peek() !== ";" && reader.peek() !== "\n")
    label += reader.next();
  return label.trimEnd();
}

/**
 * The text of `a`, `i` or `c`: GNU's one-line form (`a text`, leading blanks dropped; `a\text`
 * keeps them) or the classic one (`a\` and the text on the next lines, each but the last ending
 * in a backslash). A backslash keeps the character after it; the text ends at a newline.
 */
function parseText(reader: Reader): string {
  reader.skipBlanks();
  if (reader.peek() === "\\") {
    reader.at++;
    if (reader.peek() === "\n") reader.at++;
  }
  let text = "";
  for (;;) {
    const char = reader.next();
    if (char === undefined || char === "\n") break;
    if (char === "\\") {
      const escaped = reader.next();
      if (escaped === undefined) break;
      text += escaped;
    } else text += char;
  }
  if (text === "") throw new Unsupported(); // GNU: "expected \ after `a', `c' or `i'"
  return text;
}

/** After a command: blanks, then `;`, a newline, `}` or a comment, or the end. */
function endCommand(reader: Reader): void {
  reader.skipBlanks();
  const char = reader.peek();
  if (char === undefined || char === "}" || char === "#") return;
  if (char === ";" || char === "\n") {
    reader.at++;
    return;
  }
  throw new Unsupported();
}

function parseCommands(reader: Reader, inBlock: boolean): SedCommand[] {
  const commands: SedCommand[] = [];
  for (;;) {
    while (/^[\s;]$/.test(reader.peek() ?? "")) reader.at++;
    const first = reader.peek();
    if (first === undefined) {
      if (inBlock) throw new Unsupported();
      return commands;
    }
    if (first === "#") {
      while (reader.peek() !== undefined && reader.peek() !== "\n") reader.at++;
      continue;
    }
    if (first === "}") {
      if (!inBlock) throw new Unsupported();
      reader.at++;
      endCommand(reader);
      return commands;
    }
    const start = parseAddress(reader);
    let end: SedEndAddress | undefined;
    if (start) {
      reader.skipBlanks();
      if (reader.peek() === ",") {
        reader.at++;
        reader.skipBlanks();
        end = parseEndAddress(reader);
      }
    }
    // `0` is an address only as the start of `0,/re/`, as in GNU.
    if (start?.kind === "line" && start.line === 0 && end?.kind !== "regex") throw new Unsupported();
    reader.skipBlanks();
    let negated = false;
    while (reader.peek() === "!") {
      negated = true;
      reader.at++;
      reader.skipBlanks();
    }
    const name = reader.next();
    let command: SedCommand;
    switch (name) {
      case "{":
        command = { name: "{", negated: false, body: parseCommands(reader, true) };
        break;
      case "p":
      case "P":
      case "d":
      case "=":
      case "n":
      case "N":
      case "h":
      case "H":
      case "g":
      case "G":
      case "x":
      case "z":
        command = { name, negated: false };
        endCommand(reader);
        break;
      case "b":
      case "t":
      case "T":
        command = { name, negated: false, label: parseLabel(reader) };
        if (reader.peek() === ";") reader.at++;
        break;
      case ":": {
        if (start) throw new Unsupported(); // GNU: ": doesn't want any addresses"
        const label = parseLabel(reader);
        if (label === "") throw new Unsupported();
        command = { name, negated: false, label };
        if (reader.peek() === ";") reader.at++;
        break;
      }
      case "a":
      case "i":
      case "c":
        command = { name, negated: false, text: parseText(reader) };
        break;
      case "q":
      case "Q": {
        if (end) throw new Unsupported(); // GNU: one address only
        reader.skipBlanks();
        command = { name, negated: false, exitCode: reader.number() ?? 0 };
        endCommand(reader);
        break;
      }
      case "s":
        command = parseSubstitute(reader);
        endCommand(reader);
        break;
      case "y":
        command = parseTransliterate(reader);
        endCommand(reader);
        break;
      default:
        throw new Unsupported();
    }
    commands.push({ ...command, start, end, negated });
  }
}

/** The labels `:` defines in a script, and whether every branch names one of them (or none). */
function branchesResolve(commands: readonly SedCommand[]): boolean {
  const labels = new Set<string>();
  const branches: string[] = [];
  const visit = (list: readonly SedCommand[]) => {
    for (const command of list) {
      if (command.name === ":") labels.add(command.label);
      else if (command.name === "b" || command.name === "t" || command.name === "T") {
        if (command.label !== "") branches.push(command.label);
      } else if (command.name === "{") visit(command.body);
    }
  };
  visit(commands);
  return branches.every((label) => labels.has(label));
}

/** The script's commands, or null when it uses sed this module does not run (see above). */
export function parseSedScript(script: string, extended: boolean): SedCommand[] | null {
  try {
    const commands = parseCommands(new Reader(script, extended), false);
    // A branch to a label no `:` defines: GNU's "can't find label", which just-bash words.
    return branchesResolve(commands) ? commands : null;
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}
