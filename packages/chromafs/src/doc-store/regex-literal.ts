/**
 * `text` as a regex that matches it literally, in the syntax `TextFilter` regexes use: the one
 * Rust's regex crate (the Chroma server's `$regex`) and ECMAScript with the `u` flag (grep's and
 * the folder store's in-process matching) read alike. Every ASCII punctuation character becomes
 * a `\xHH` escape, which both engines take as that character (a backslash before punctuation
 * would not do: `u` mode refuses `\-`, `\#`, `\&`, `\~` as escapes). Everything else (letters,
 * digits, spaces, newlines, non-ASCII) is literal in both. Tested against both engines, the
 * server's through a real `$regex` query (regex-literal.test.ts).
 */
const ASCII_PUNCTUATION = /[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/g;

export function regexLiteral(text: string): string {
  return text.replace(ASCII_PUNCTUATION, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
