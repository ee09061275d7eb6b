import { readFile } from "node:fs/promises";
import picomatch from "picomatch";

import { IngestError } from "../errors.js";

/**
 * Group names become metadata keys (`group_<name>: true`, one boolean per group, because the
 * pinned Chroma server rejects list values), so they are restricted to a safe alphabet.
 */
const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function validateGroups(groups: readonly string[], where: string): string[] {
  for (const group of groups) {
    if (!GROUP_NAME.test(group)) {
      throw new IngestError(
        `${where}: group name ${JSON.stringify(group)} is invalid; use 1–64 characters of letters, digits, _ . - (starting with a letter or digit)`,
      );
    }
  }
  return [...new Set(groups)].sort();
}

/** A groups mapping, normalized: glob as written → sorted, distinct, validated group names. */
export type GroupMapping = Record<string, string[]>;

export interface GroupRules {
  /** The normalized mapping, as ingest stores it with the collection (see `PathTree.groupRules`). */
  mapping: GroupMapping;
  /** Groups for a page path relative to the docs root ("guides/intro.mdx"); [] when no rule matches. */
  groupsFor(relativePath: string): string[];
}

/**
 * A groups file: JSON object of glob → group names, globs matched (picomatch, `dot: true`)
 * against the page path relative to the docs dir, e.g.
 * `{ "internal/**": ["staff"], "enterprise/*.mdx": ["enterprise", "staff"] }`.
 * Every matching rule adds its groups. Front-matter `groups:` overrides the file for its page.
 */
export async function loadGroupRules(file: string): Promise<GroupRules> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new IngestError(`Groups file ${file} could not be read as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseGroupRules(data, file);
}

export function parseGroupRules(data: unknown, source: string): GroupRules {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new IngestError(
      `Groups file ${source} must be a JSON object mapping globs to lists of group names`,
    );
  }
  const rules = Object.entries(data as Record<string, unknown>).map(([glob, groups]) => {
    const list = typeof groups === "string" ? [groups] : groups;
    if (!Array.isArray(list) || list.some((group) => typeof group !== "string")) {
      throw new IngestError(
        `Groups file ${source}: the value of ${JSON.stringify(glob)} must be a list of group names`,
      );
    }
    return {
      glob,
      matches: picomatch(glob.replace(/^\/+/, ""), { dot: true }),
      groups: validateGroups(list as string[], `Groups file ${source}`),
    };
  });
  return {
    mapping: Object.fromEntries(rules.map((rule) => [rule.glob, rule.groups])),
    groupsFor(relativePath) {
      const groups = new Set<string>();
      for (const rule of rules)
        if (rule.matches(relativePath)) for (const group of rule.groups) groups.add(group);
      return [...groups].sort();
    },
  };
}
