import { createHash } from "node:crypto";
import type { DrawerDraft } from "../drawers/drawer.js";
import type { MineError, MineExclusionReason } from "./mine-types.js";

/**
 * What the two source readers (project files, conversation exports) hand the mining run: one job
 * per source with the hash that decides whether it changed, plus the files they left out or
 * could not read. Drafts are built only for sources whose hash changed.
 */

export interface SourceJob {
  /** The sink's source key: `project:<wing>/<relative path>` or `convo:<wing>/<conversation id>`. */
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

/** What kind of thing a mined source is; the first part of its key. */
export type SourceKind = "project" | "convo";

/** The kinds a run sweeps: its own sources, and the further parts of long conversations. */
export const SOURCE_KEY_KINDS = ["project", "convo", "convo-part"] as const;

/**
 * The sink key of a source: its kind, then the wing, so two projects' `README.md` stay apart and
 * a conversation whose id is a project file's path (`convo:me/notes.md`) never replaces that
 * file's drawers (`project:me/notes.md`).
 */
export function sourceKey(kind: SourceKind, wing: string, id: string): string {
  return `${kind}:${wing}/${id}`;
}

/**
 * The key of part `part` (2, 3, ...) of a source too large for one `replaceSource` call
 * (`maxBatchDrafts`): `convo-part:<wing>/<id>#<part>`. Part 1 keeps the source's own key. Its own
 * kind, so no conversation id can name it; the number after the last `#` makes it unambiguous.
 */
export function partKey(key: string, part: number): string {
  if (part === 1) return key;
  const colon = key.indexOf(":");
  return `${key.slice(0, colon)}-part${key.slice(colon)}#${part}`;
}

/** The source key a part key belongs to (`convo-part:me/x#3` → `convo:me/x`), or undefined for other keys. */
export function partOwner(key: string): string | undefined {
  const match = /^([a-z]+)-part(:.*)#[0-9]+$/s.exec(key);
  return match ? `${match[1]}${match[2]}` : undefined;
}
