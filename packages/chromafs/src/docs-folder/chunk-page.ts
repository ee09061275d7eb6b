import { CHUNK_MAX_BYTES, CHUNK_MERGE_BYTES } from "../tuning.js";

export interface ChunkOptions {
  /** Split at Markdown ATX headings (for .md/.mdx); other files are split by size only. */
  markdown: boolean;
  maxBytes?: number;
  /** Merge consecutive sections while the chunk stays under this size (0: one chunk per section). */
  mergeBytes?: number;
}

const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]|\r?$)/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits a page into chunks that concatenate back to it byte for byte. Markdown is cut before
 * each ATX heading outside fenced code and front-matter, small neighbouring sections are merged
 * again up to `mergeBytes`, and any section over the size cap is cut between lines. A chunk always ends at a line end (or the end of the page), so a line —
 * what grep matches — never straddles two chunks and the store can narrow grep chunk by chunk.
 */
export function chunkPage(text: string, options: ChunkOptions): string[] {
  if (text === "") return [""];
  const lines = splitLines(text);
  const sections = options.markdown ? splitAtHeadings(lines) : [lines];
  const maxBytes = options.maxBytes ?? CHUNK_MAX_BYTES;
  const mergeBytes = Math.min(options.mergeBytes ?? CHUNK_MERGE_BYTES, maxBytes);
  const chunks: string[] = [];
  let merged = "";
  let mergedBytes = 0;
  const flushMerged = () => {
    if (merged !== "") chunks.push(merged);
    merged = "";
    mergedBytes = 0;
  };
  for (const section of sections) {
    const text = section.join("");
    const bytes = Buffer.byteLength(text, "utf8");
    if (bytes <= maxBytes && mergedBytes + bytes <= mergeBytes) {
      merged += text;
      mergedBytes += bytes;
      continue;
    }
    flushMerged();
    if (bytes <= mergeBytes) {
      merged = text;
      mergedBytes = bytes;
    } else {
      for (const chunk of splitByLines(section, maxBytes)) chunks.push(chunk);
    }
  }
  flushMerged();
  return chunks;
}

/** The line number (1-based) each chunk's first line has in the page the chunks concatenate to. */
export function chunkStartLines(chunks: readonly string[]): number[] {
  const starts: number[] = [];
  let line = 1;
  for (const chunk of chunks) {
    starts.push(line);
    line += countNewlines(chunk);
  }
  return starts;
}

export function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

function splitByLines(lines: string[], maxBytes: number): string[] {
  const chunks: string[] = [];
  let current = "";
  let currentBytes = 0;
  for (const line of lines) {
    const lineBytes = Buffer.byteLength(line, "utf8");
    if (currentBytes > 0 && currentBytes + lineBytes > maxBytes) {
      chunks.push(current);
      current = "";
      currentBytes = 0;
    }
    current += line;
    currentBytes += lineBytes;
  }
  if (current !== "") chunks.push(current);
  return chunks;
}

/** Lines with their "\n" kept (the last one may have none). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const end = text.indexOf("\n", start);
    if (end === -1) break;
    lines.push(text.slice(start, end + 1));
    start = end + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function splitAtHeadings(lines: string[]): string[][] {
  let index = frontMatterLineCount(lines);
  const sections: string[][] = [lines.slice(0, index)];
  let fence: { char: string; length: number } | undefined;
  for (; index < lines.length; index++) {
    const line = lines[index] as string;
    const content = line.replace(/\r?\n$/, "");
    if (fence) {
      const close = FENCE_OPEN.exec(content);
      const marker = close?.[1];
      if (marker && marker[0] === fence.char && marker.length >= fence.length && content.trim() === marker) {
        fence = undefined;
      }
    } else {
      const open = FENCE_OPEN.exec(content);
      const marker = open?.[1];
      if (
        marker &&
        !(marker[0] === "`" && content.slice(content.indexOf(marker) + marker.length).includes("`"))
      ) {
        fence = { char: marker[0] as string, length: marker.length };
      } else if (ATX_HEADING.test(content) && (sections.at(-1)?.length ?? 0) > 0) {
        sections.push([]);
      }
    }
    sections.at(-1)?.push(line);
  }
  return sections;
}

/** Lines of a leading `---` … `---` YAML block (0 when there is none or it never closes). */
export function frontMatterLineCount(lines: readonly string[]): number {
  if (lines[0]?.replace(/\r?\n$/, "") !== "---") return 0;
  for (let index = 1; index < lines.length; index++) {
    const content = lines[index]?.replace(/\r?\n$/, "");
    if (content === "---" || content === "...") return index + 1;
  }
  return 0;
}
