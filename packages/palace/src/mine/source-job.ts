import { createHash } from "node:crypto";
import type { DrawerDraft } from "../drawers/drawer.js";
import type { MineError, MineExclusionReason } from "./mine-types.js";

/**
 * What the two source readers (project files, conversation exports) hand the mining run: one job
 * per source with the hash that decides whether it changed, plus the files they left out or
 * could not read. Drafts are built only for sources whose hash changed.
 */

export interface SourceJob {
  /** The sink's source key: `<wing>/<relative path>` or `<wing>/<conversation id>`. */
  key: string;
  /** The file it came from, relative to the mined path. */
  file: string;
  hash: string;
  /** Where it comes from (`project:<root>`, `convos:<export file>`): the scope a later sweep covers. */
  origin: string;
  drafts: () => DrawerDraft[];
}

/**
 * Every source `origin` holds now (`keys`), sent once the reader knows it for sure. Sources the
 * palace recorded from that origin that are not among them are gone and get removed. A reader that
 * is unsure (a file that could not be read or parsed whole) sends no sweep, so nothing is removed.
 */
export interface SourceSweep {
  origin: string;
  keys: ReadonlySet<string>;
  /** The file a removed source is reported under (relative to the mined path); default: its key without the wing. */
  file?: string;
}

export type SourceItem =
  | { type: "files"; files: number }
  | { type: "job"; job: SourceJob }
  | { type: "sweep"; sweep: SourceSweep }
  | { type: "excluded"; file: string; reason: MineExclusionReason }
  | { type: "error"; error: MineError }
  | { type: "file-done"; file: string };

/**
 * Bumped when the way drafts are built changes (chunking, metadata), so every source is re-filed
 * once on the next run instead of keeping drawers in the old shape. 2: sources record their
 * origin and every source holding a shared drawer is linked to it (palaces mined before need one
 * re-filing for both; kept drawers are not embedded again).
 */
export const MINE_RECIPE_VERSION = 2;

/**
 * A source's hash covers what it says and everything that shapes its drawers (wing, room,
 * chunking, the cap), so changing any of them re-files it while an untouched source is skipped.
 */
export function sourceHash(recipe: Record<string, unknown>, body: string): string {
  return createHash("sha256")
    .update(JSON.stringify({ version: MINE_RECIPE_VERSION, ...recipe }))
    .update("\0")
    .update(body)
    .digest("hex");
}

/** The sink key of a source: the wing first, so two projects' `README.md` stay apart. */
export function sourceKey(wing: string, id: string): string {
  return `${wing}/${id}`;
}
