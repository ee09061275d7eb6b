import type { Collection } from "@atrium/chroma";
import type { GroupMapping } from "../docs-folder/access-groups.js";

import { IngestError } from "../errors.js";
/**
 * Collection metadata key holding the groups mapping an ingest applies, as JSON, recorded before
 * that ingest writes its first chunk into a collection that has no path tree yet (a first ingest,
 * or a rebuild's staging collection). The tree stores the mapping too, but only once it is
 * written; without this record an ingest killed before its tree would leave chunks and no
 * mapping, and a re-run without `--groups-file` would publish the restricted pages. It is read
 * only while the collection has no tree, and dropped once the tree is in place.
 */
export const PENDING_GROUPS_METADATA_KEY = "atrium_groups_pending";

/** The metadata entry recording `mapping` (`{}`: no mapping applies). */
export function pendingGroupsEntry(mapping: GroupMapping): Record<string, string> {
  return { [PENDING_GROUPS_METADATA_KEY]: JSON.stringify(mapping) };
}

/** Records `mapping` in the collection metadata, keeping the other keys (modify replaces them all). */
export async function recordPendingGroups(collection: Collection, mapping: GroupMapping): Promise<void> {
  const entry = pendingGroupsEntry(mapping);
  if (collection.metadata?.[PENDING_GROUPS_METADATA_KEY] === entry[PENDING_GROUPS_METADATA_KEY]) return;
  await collection.modify({ metadata: { ...collection.metadata, ...entry } });
}

/** The mapping recorded by an ingest that had not written its tree yet; undefined when none was. */
export function readPendingGroups(collection: Collection): GroupMapping | undefined {
  const value = collection.metadata?.[PENDING_GROUPS_METADATA_KEY];
  if (value === undefined || value === null) return undefined;
  try {
    if (typeof value !== "string") throw new Error(`a ${typeof value}, not a JSON string`);
    const mapping: unknown = JSON.parse(value);
    if (typeof mapping !== "object" || mapping === null || Array.isArray(mapping)) {
      throw new Error("not a JSON object");
    }
    return mapping as GroupMapping;
  } catch (error) {
    throw new IngestError(
      `Collection ${collection.name} has a corrupt ${PENDING_GROUPS_METADATA_KEY} metadata value (${(error as Error).message}), ` +
        "so the groups mapping of its interrupted ingest is unknown; pass --groups-file <file> (or --clear-groups if no mapping should apply)",
      { cause: error },
    );
  }
}
