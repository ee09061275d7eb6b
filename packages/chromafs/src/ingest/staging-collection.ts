import { createHash } from "node:crypto";
import type { ChromaClient, Collection, Metadata } from "@atrium/chroma";
import { rethrowIfFatal } from "@atrium/spec";
import type { GroupMapping } from "../docs-folder/access-groups.js";
import { IngestError } from "../errors.js";
import { PATH_TREE_ID } from "../tree/path-tree.js";
import { PENDING_GROUPS_METADATA_KEY, readPendingGroups } from "./pending-groups.js";
/**
 * A rebuild writes a new collection beside the old one and swaps it in only when it is complete
 * (its path tree written), so a rebuild killed at any moment leaves the old collection — pages,
 * access rules and stored groups mapping — in use. The new collection's name is derived from the
 * target's, and its metadata names the target (`atrium_rebuild_of`), so the next ingest of the
 * target finds it: a complete one is swapped in, a half-built one dropped, and either is said.
 */
export const REBUILD_OF_METADATA_KEY = "atrium_rebuild_of";

const STAGING_SUFFIX = ".atrium-rebuild";
const COLLECTION_NAME_MAX = 512;

/** `<target>.atrium-rebuild`, or a hash of the target when that would exceed Chroma's 512 characters. */
export function stagingCollectionName(target: string): string {
  const name = `${target}${STAGING_SUFFIX}`;
  if (name.length <= COLLECTION_NAME_MAX) return name;
  return `atrium-rebuild-${createHash("sha256").update(target).digest("hex").slice(0, 32)}`;
}

export async function findCollection(client: ChromaClient, name: string): Promise<Collection | undefined> {
  try {
    return await client.getCollection({ name });
  } catch (error) {
    rethrowIfFatal(error);
    return undefined;
  }
}

export async function dropCollection(client: ChromaClient, name: string): Promise<void> {
  try {
    await client.deleteCollection({ name });
  } catch (error) {
    rethrowIfFatal(error);
    // Absent already: nothing to drop.
  }
}

/** Whether the collection's path tree is stored: written last, in one upsert, it marks a complete ingest. */
export async function hasPathTree(collection: Collection): Promise<boolean> {
  return (await collection.get({ ids: [PATH_TREE_ID], include: [] })).ids.length > 0;
}

export interface RebuildRecovery {
  /** What was found and done, for the user (the CLI prints each on stderr). */
  notices: string[];
  /**
   * The groups mapping recorded by a half-built rebuild that was dropped while the target has no
   * tree: the only record of it left, so a re-run without `--groups-file` still applies it.
   */
  droppedMapping?: GroupMapping;
}

/**
 * Finishes or undoes a rebuild of `target` that was interrupted (killed, or the machine lost):
 * a staging collection with its tree is complete and replaces the target (the swap may have
 * been cut between dropping the old collection and renaming the new one); one without its tree
 * is half-built and dropped (its chunks were never visible: sessions read the target). A
 * collection that merely has the staging name but wasn't made by a rebuild of `target` is left
 * alone (a rebuild then refuses to overwrite it).
 */
export async function recoverInterruptedRebuild(
  client: ChromaClient,
  target: string,
): Promise<RebuildRecovery> {
  const name = stagingCollectionName(target);
  const staging = await findCollection(client, name);
  if (!staging || staging.metadata?.[REBUILD_OF_METADATA_KEY] !== target) return { notices: [] };
  if (await hasPathTree(staging)) {
    const replaced = (await findCollection(client, target)) !== undefined;
    await swapIn(client, staging, target);
    return {
      notices: [
        `finished an interrupted --rebuild of ${target}: its new collection ${name} was complete, so it ${replaced ? "replaced the old one" : "now takes its place"}`,
      ],
    };
  }
  const mapping = readPendingGroups(staging);
  await dropCollection(client, name);
  const old = await findCollection(client, target);
  const notice = `dropped ${name}, the half-built collection of an interrupted --rebuild of ${target}; ${
    old ? `the old ${target} was never touched and stays in use` : `there is no ${target} yet`
  }`;
  const needed = !old || !(await hasPathTree(old));
  return needed && mapping ? { notices: [notice], droppedMapping: mapping } : { notices: [notice] };
}

/** The metadata a staging collection is created with, besides the usual docs collection keys. */
export function stagingMetadata(target: string): Metadata {
  return { [REBUILD_OF_METADATA_KEY]: target };
}

/**
 * Puts a complete staging collection in the target's place: the old collection is dropped, then
 * the staging one renamed (Chroma refuses a rename onto an existing name) and its rebuild-only
 * metadata removed in the same call. Between the two calls the target does not exist — sessions
 * opening it fail with "does not exist", and never see a page they shouldn't — and a run killed
 * there is finished by the next ingest (`recoverInterruptedRebuild`).
 */
export async function swapIn(
  client: ChromaClient,
  staging: Collection,
  target: string,
  betweenDropAndRename: () => Promise<void> = async () => {},
): Promise<void> {
  if (staging.metadata?.[REBUILD_OF_METADATA_KEY] !== target) {
    throw new IngestError(`Collection ${staging.name} is not a rebuild of ${target}; refusing to swap it in`);
  }
  await dropCollection(client, target);
  await betweenDropAndRename();
  const metadata: Metadata = { ...staging.metadata };
  delete metadata[REBUILD_OF_METADATA_KEY];
  delete metadata[PENDING_GROUPS_METADATA_KEY];
  await staging.modify({ name: target, metadata });
}
