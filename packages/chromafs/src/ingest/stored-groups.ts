import { type GroupMapping, type GroupRules, parseGroupRules } from "../docs-folder/access-groups.js";

import type { PreparedPage } from "../docs-folder/read-page.js";
import { IngestError } from "../errors.js";
import type { PathTree } from "../tree/path-tree.js";
/**
 * Where the glob → groups mapping an ingest applied came from:
 * - `groups-file`: the groups file passed to this ingest (now stored with the collection);
 * - `stored`: the mapping stored with the collection by an earlier ingest, kept;
 * - `cleared`: dropped on request (`clearGroups`, or a groups file holding `{}`);
 * - `none`: there is no mapping (none passed, none stored).
 */
export type GroupsMappingSource = "groups-file" | "stored" | "cleared" | "none";

export interface GroupsSummary {
  mapping: GroupsMappingSource;
  /** Globs in the mapping applied (0 unless `groups-file` or `stored`). */
  rules: number;
  /** Pages now restricted to some groups, by the mapping or by front-matter. */
  restricted: number;
}

export interface ChosenGroups {
  source: GroupsMappingSource;
  rules: GroupRules | undefined;
}

/**
 * The mapping this ingest applies: a groups file replaces the stored one (an empty file `{}`
 * drops it, as `clear` does); without either, the mapping stored with the collection is kept,
 * so leaving out `--groups-file` never makes restricted pages public.
 */
export function chooseGroupRules(options: {
  fileRules: GroupRules | undefined;
  clear: boolean;
  prior: PathTree | undefined;
  /**
   * The mapping recorded by an ingest that never wrote its tree (`atrium_groups_pending`): what
   * applies when the collection has no tree yet, e.g. after a first ingest was killed.
   */
  pending?: GroupMapping;
  collection: string;
}): ChosenGroups {
  const { fileRules, prior } = options;
  if (fileRules) {
    return Object.keys(fileRules.mapping).length === 0
      ? { source: "cleared", rules: undefined }
      : { source: "groups-file", rules: fileRules };
  }
  if (options.clear) return { source: "cleared", rules: undefined };
  const stored = prior ? prior.groupRules : options.pending;
  if (!stored || Object.keys(stored).length === 0) return { source: "none", rules: undefined };
  return {
    source: "stored",
    rules: parseGroupRules(stored, `stored with collection ${options.collection}`),
  };
}

const NAMED_PAGES = 5;

/**
 * Trees written before ingest stored its mapping have no `groupRules`, so an ingest without a
 * groups file can't tell which restrictions came from the file it was last given. Rather than
 * silently publishing those pages, it refuses and asks for the file (or an explicit clear).
 * Pages whose own front-matter now sets their groups are the author's call and pass.
 */
export function refuseLegacyUnrestrict(
  prior: PathTree | undefined,
  chosen: ChosenGroups,
  pages: readonly PreparedPage[],
  collection: string,
): void {
  if (!prior || prior.groupRules !== undefined || chosen.source !== "none") return;
  const exposed = pages.filter((page) => {
    const before = prior.files[page.doc.page]?.groups ?? [];
    return before.length > 0 && !page.frontMatterGroups && (page.entry.groups ?? []).length === 0;
  });
  if (exposed.length === 0) return;
  const named = exposed
    .slice(0, NAMED_PAGES)
    .map((page) => `${page.doc.page} (${(prior.files[page.doc.page]?.groups ?? []).join(", ")})`);
  const more = exposed.length > NAMED_PAGES ? ` and ${exposed.length - NAMED_PAGES} more` : "";
  throw new IngestError(
    `${exposed.length} restricted page${exposed.length === 1 ? "" : "s"} of collection ${collection} would become public: ${named.join(", ")}${more}. ` +
      "The collection was ingested before its groups mapping was stored with it, so this ingest doesn't know it; " +
      "pass --groups-file <file> to keep them restricted (the mapping is stored from then on), or --clear-groups to make them public",
  );
}

/** What the summary says about groups, e.g. "groups: mapping stored with the collection (2 rules); 3 of 40 pages restricted". */
export function describeGroups(groups: GroupsSummary, pages: number): string {
  const rules = `${groups.rules} rule${groups.rules === 1 ? "" : "s"}`;
  const mapping = {
    "groups-file": `mapping from the groups file (${rules}), stored with the collection`,
    stored: `mapping stored with the collection (${rules})`,
    cleared: "mapping cleared; only front-matter groups restrict pages",
    none: "no mapping",
  }[groups.mapping];
  return `groups: ${mapping}; ${groups.restricted} of ${pages} page${pages === 1 ? "" : "s"} restricted`;
}
