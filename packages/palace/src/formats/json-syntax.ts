import { ExportParseError } from "../errors.js";

/**
 * JSON parsing that says where a file is broken. Node 20's `JSON.parse` often reports no position
 * ("Unexpected token '}', ... is not valid JSON"), so on failure the text is scanned once more by
 * a small validator that stops at the first offending character.
 */

/** `JSON.parse(text)`, or an `ExportParseError` naming the line and column of the first error. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const offset = jsonSyntaxErrorOffset(text) ?? 0;
    const found = offset >= text.length ? "the text ends too early" : `unexpected '${text[offset]}'`;
    throw new ExportParseError(lineColumn(text, offset), `invalid JSON: ${found}`, { cause: error });
  }
}

/** "line L, column C", both 1-based, of a character offset. */
export function lineColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (
    let index = text.indexOf("\n");
    index !== -1 && index < offset;
    index = text.indexOf("\n", index + 1)
  ) {
    line++;
    lineStart = index + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

type Expect = "value" | "value-or-close" | "key" | "key-or-close" | "colon" | "comma-or-close" | "end";

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ["true", "false", "null"];

/**
 * The offset of the first character that makes `text` invalid JSON (the text's length when it
 * ends too early), or undefined when it is valid. Iterative, so deep nesting cannot overflow.
 */
export function jsonSyntaxErrorOffset(text: string): number | undefined {
  const stack: string[] = [];
  let expect: Expect = "value";
  let i = 0;
  const afterValue = (): Expect => (stack.length === 0 ? "end" : "comma-or-close");
  for (;;) {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
    if (i >= text.length) return expect === "end" ? undefined : text.length;
    const ch = text[i]!;
    switch (expect) {
      case "end":
        return i;
      case "colon":
        if (ch !== ":") return i;
        i++;
        expect = "value";
        continue;
      case "comma-or-close": {
        const open = stack[stack.length - 1];
        if (ch === ",") {
          i++;
          expect = open === "{" ? "key" : "value";
        } else if ((ch === "}" && open === "{") || (ch === "]" && open === "[")) {
          stack.pop();
          i++;
          expect = afterValue();
        } else return i;
        continue;
      }
      case "key":
      case "key-or-close": {
        if (ch === "}" && expect === "key-or-close") {
          stack.pop();
          i++;
          expect = afterValue();
          continue;
        }
        if (ch !== '"') return i;
        const end = scanString(text, i);
        if (end < 0) return -end - 1;
        i = end;
        expect = "colon";
        continue;
      }
      case "value":
      case "value-or-close": {
        if (ch === "]" && expect === "value-or-close") {
          stack.pop();
          i++;
          expect = afterValue();
          continue;
        }
        if (ch === "{" || ch === "[") {
          stack.push(ch);
          i++;
          expect = ch === "{" ? "key-or-close" : "value-or-close";
          continue;
        }
        if (ch === '"') {
          const end = scanString(text, i);
          if (end < 0) return -end - 1;
          i = end;
        } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
          NUMBER.lastIndex = i;
          if (!NUMBER.test(text)) return i;
          i = NUMBER.lastIndex;
        } else {
          const literal = LITERALS.find((word) => text.startsWith(word, i));
          if (literal === undefined) return i;
          i += literal.length;
        }
        expect = afterValue();
      }
    }
  }
}

/** The offset just past the string starting at `start`, or `-(errorOffset + 1)`. */
function scanString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return -(i + 1);
    if (code === 0x5c) {
      const escaped = text[i + 1];
      if (escaped === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return -(i + 1);
        i += 5;
      } else if (escaped !== undefined && '"\\/bfnrt'.includes(escaped)) i++;
      else return -(i + 1);
    }
  }
  return -(text.length + 1);
}
