import { extname } from "node:path";
import { splitRanges } from "./text-split.js";

/**
 * How a project file becomes drawers. Markdown is cut at its headings (a section is what a
 * reader looks up), code and other text at blank lines, packed up to the cap. Every chunk is a
 * verbatim slice of the file with the lines it spans, so a hit can be opened in an editor.
 */

export interface FileChunk {
  content: string;
  /** 1-based, inclusive. */
  lineStart: number;
  lineEnd: number;
  /** Markdown: the headings the chunk sits under, outermost first ("Install › On Linux"). */
  heading?: string;
  position: number;
}

const MARKDOWN_EXTENSIONS = new Set([".md", ".mdx", ".markdown", ".mdown", ".mkd"]);

export function isMarkdownPath(path: string): boolean {
  return MARKDOWN_EXTENSIONS.has(extname(path).toLowerCase());
}

export function chunkProjectFile(path: string, text: string, maxChars: number): FileChunk[] {
  const lineStarts = lineStartOffsets(text);
  const sections = isMarkdownPath(path) ? markdownSections(text) : [{ start: 0, end: text.length }];
  const chunks: FileChunk[] = [];
  for (const section of sections) {
    for (const [start, end] of splitRanges(text, section.start, section.end, maxChars)) {
      chunks.push({
        content: text.slice(start, end),
        lineStart: lineOf(lineStarts, start),
        lineEnd: lineOf(lineStarts, end - 1),
        ...(section.heading ? { heading: section.heading } : {}),
        position: chunks.length,
      });
    }
  }
  return chunks;
}

/** The text of every ATX heading outside fenced code, for room votes. */
export function markdownHeadings(text: string): string[] {
  return markdownHeadingLines(text).map((heading) => heading.title);
}

interface Section {
  start: number;
  end: number;
  heading?: string;
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

interface HeadingLine {
  offset: number;
  /** Offset just past the heading line (with its newline). */
  bodyStart: number;
  level: number;
  title: string;
}

function markdownHeadingLines(text: string): HeadingLine[] {
  const headings: HeadingLine[] = [];
  let fence: string | undefined;
  let offset = 0;
  for (const line of text.split("\n")) {
    const next = offset + line.length + 1;
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
    } else if (fence === undefined) {
      const heading = HEADING.exec(line.replace(/\r$/, ""));
      if (heading) {
        headings.push({
          offset,
          bodyStart: Math.min(next, text.length),
          level: heading[1]!.length,
          title: heading[2]!,
        });
      }
    }
    offset = next;
  }
  return headings;
}

/**
 * Sections from each heading to the next. A heading followed directly by another heading starts
 * the same section as it (a title over its first subsection is not a drawer of its own).
 */
function markdownSections(text: string): Section[] {
  const headings = markdownHeadingLines(text);
  const sections: Section[] = [];
  const trail: { level: number; title: string }[] = [];
  let start = 0;
  let heading: string | undefined;
  // True while the current section holds nothing but heading lines.
  let bare = false;
  const push = (end: number) => {
    if (text.slice(start, end).trim() !== "") sections.push({ start, end, ...(heading ? { heading } : {}) });
  };
  headings.forEach((line, index) => {
    if (!bare) {
      push(line.offset);
      start = line.offset;
    }
    while (trail.length > 0 && trail[trail.length - 1]!.level >= line.level) trail.pop();
    trail.push({ level: line.level, title: line.title });
    heading = trail.map((entry) => entry.title).join(" › ");
    bare = text.slice(line.bodyStart, headings[index + 1]?.offset ?? text.length).trim() === "";
  });
  push(text.length);
  return sections;
}

function lineStartOffsets(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1))
    starts.push(index + 1);
  return starts;
}

/** 1-based line of a character offset. */
function lineOf(lineStarts: number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (lineStarts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}
