import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { IngestError } from "../errors.js";
import { DEFAULT_CHROMAFS_LIMITS } from "../limits.js";
import type { PathTreeFile } from "../tree/path-tree.js";
import { LAZY_PAGE_MIN_BYTES } from "../tuning.js";
import { type GroupRules, validateGroups } from "./access-groups.js";
import { frontMatterLineCount, splitLines } from "./chunk-page.js";
import { readFrontMatter } from "./front-matter.js";
import type { DocFile } from "./walk-docs.js";
export interface PreparedPage {
  doc: DocFile;
  text: string;
  entry: PathTreeFile;
  /** The page's groups come from its front-matter `groups:` (which overrides any mapping). */
  frontMatterGroups: boolean;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Reads a page and works out its tree entry (everything but the chunk count). */
export async function readPage(doc: DocFile, rules: GroupRules | undefined): Promise<PreparedPage> {
  const { maxPageBytes, maxPageLines } = DEFAULT_CHROMAFS_LIMITS;
  const info = await stat(doc.file);
  if (info.size > maxPageBytes) {
    throw new IngestError(
      `${doc.file} is ${info.size} bytes, over the ${maxPageBytes}-byte page limit; split it or leave it out`,
    );
  }
  const bytes = await readFile(doc.file);
  const lines = lineCount(bytes);
  if (lines > maxPageLines) {
    throw new IngestError(
      `${doc.file} has ${lines} lines, over the ${maxPageLines}-line page limit; split it or leave it out`,
    );
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new IngestError(
      `${doc.file} is not valid UTF-8; pages must be UTF-8 text so they read back byte for byte`,
    );
  }
  const front = doc.kind === "markdown" ? readFrontMatter(text, doc.page) : {};
  const groups = validateGroups(front.groups ?? rules?.groupsFor(doc.relative) ?? [], doc.page);
  const title =
    front.title ?? (doc.kind === "markdown" ? firstHeading(text) : undefined) ?? basename(doc.page);
  const entry: PathTreeFile = {
    size: bytes.length,
    mtime: Math.floor(info.mtimeMs),
    chunks: 0,
    title,
    hash: createHash("sha256").update(bytes).digest("hex"),
  };
  if (groups.length > 0) entry.groups = groups;
  if (bytes.length >= LAZY_PAGE_MIN_BYTES) entry.lazy = true;
  return { doc, text, entry, frontMatterGroups: front.groups !== undefined };
}

/** Lines as grep counts them: one per newline, plus a last line without one. */
function lineCount(bytes: Uint8Array): number {
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? lines + 1 : lines;
}

function firstHeading(text: string): string | undefined {
  const lines = splitLines(text.slice(0, 64 * 1024));
  for (const line of lines.slice(frontMatterLineCount(lines))) {
    const match = /^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*\r?\n?$/.exec(line);
    if (match?.[1]) return match[1];
  }
  return undefined;
}
