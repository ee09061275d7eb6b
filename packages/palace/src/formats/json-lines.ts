import type { ParseProblem } from "./conversation.js";
import { jsonSyntaxErrorOffset } from "./json-syntax.js";

/**
 * JSON Lines as written by Claude Code and Codex CLI. A line that is not valid JSON (a transcript
 * cut off mid-write, a hand edit) becomes a problem naming its line and column; the other lines
 * are still read.
 */

export interface JsonLine {
  /** 1-based line number in the file. */
  line: number;
  value: unknown;
}

export function readJsonLines(text: string): { lines: JsonLine[]; problems: ParseProblem[] } {
  const lines: JsonLine[] = [];
  const problems: ParseProblem[] = [];
  let lineNumber = 0;
  for (const raw of text.split("\n")) {
    lineNumber++;
    const trimmed = raw.trim();
    if (trimmed === "") continue;
    try {
      lines.push({ line: lineNumber, value: JSON.parse(trimmed) });
    } catch {
      const leading = raw.length - raw.trimStart().length;
      const offset = jsonSyntaxErrorOffset(trimmed) ?? 0;
      problems.push({
        position: `line ${lineNumber}, column ${leading + offset + 1}`,
        message: "invalid JSON; the line was skipped",
      });
    }
  }
  return { lines, problems };
}
