import { parse } from "yaml";
import { IngestError } from "../errors.js";
import { frontMatterLineCount, splitLines } from "./chunk-page.js";
export interface FrontMatter {
  title?: string;
  /** From `groups:` (a list or one name); undefined when the page doesn't say. */
  groups?: string[];
}

/**
 * Reads the fields ingest uses from a page's YAML front-matter. Access comes from one key,
 * `groups` (a list of group names, or a single name); `groups: []` makes the page public even
 * when the mapping file would restrict it. Unparseable front-matter is an error naming the page:
 * guessing could publish a page meant to be restricted.
 */
export function readFrontMatter(text: string, page: string): FrontMatter {
  const lines = splitLines(text.slice(0, 64 * 1024));
  const count = frontMatterLineCount(lines);
  if (count === 0) return {};
  let data: unknown;
  try {
    data = parse(lines.slice(1, count - 1).join(""));
  } catch (error) {
    throw new IngestError(`${page}: its YAML front-matter does not parse: ${(error as Error).message}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data)) return {};
  const record = data as Record<string, unknown>;
  const result: FrontMatter = {};
  if (typeof record.title === "string" && record.title.trim()) result.title = record.title.trim();
  if ("groups" in record) result.groups = readGroups(record.groups, page);
  return result;
}

function readGroups(value: unknown, page: string): string[] {
  if (value === null || value === undefined) return [];
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.some((item) => typeof item !== "string")) {
    throw new IngestError(`${page}: front-matter \`groups\` must be a group name or a list of group names`);
  }
  return list as string[];
}
