import { StorageFormatError } from "../errors.js";

/**
 * The version of everything ChromaFs stores in a collection: the path tree document, the
 * collection metadata and the chunks' ids and metadata. One number, written in two places: the
 * tree's `version` (the authority, written in the same upsert as the tree) and the collection
 * metadata key below (so a reader can refuse before fetching anything). A reader accepts this
 * version, migrates older ones (see path-tree-migrations.ts) and refuses newer ones.
 * History and layout: packages/chromafs/docs/storage-format.md — bump it there too.
 */
export const STORAGE_FORMAT_VERSION = 2;

/** Collection metadata key holding the storage format version (absent in format 1). */
export const FORMAT_METADATA_KEY = "atrium_format";

/** Throws StorageFormatError when `version` is newer than this package reads. */
export function refuseNewerFormat(version: number, collection: string): void {
  if (version > STORAGE_FORMAT_VERSION)
    throw new StorageFormatError(collection, version, STORAGE_FORMAT_VERSION);
}
