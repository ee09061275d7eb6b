import { AtriumError } from "@atrium/spec";

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

/**
 * The collection was written by a newer @atrium/chromafs than this one. Reading it anyway could
 * misread what changed (access rules included), so it is refused until the package is upgraded
 * or the collection is rebuilt by this version.
 */
export class StorageFormatError extends AtriumError {
  readonly collection: string;
  /** The format version found in the collection. */
  readonly found: number;
  /** The newest format this package reads. */
  readonly supported: number;

  constructor(collection: string, found: number) {
    super(
      "CONFIG",
      `Collection ${collection} was written by a newer @atrium/chromafs (format ${found}, this reads up to ${STORAGE_FORMAT_VERSION}): ` +
        `upgrade the package or re-ingest with this version (atrium-docs ingest <dir> --collection ${collection} --rebuild)`,
    );
    this.collection = collection;
    this.found = found;
    this.supported = STORAGE_FORMAT_VERSION;
  }
}

/** Throws StorageFormatError when `version` is newer than this package reads. */
export function refuseNewerFormat(version: number, collection: string): void {
  if (version > STORAGE_FORMAT_VERSION) throw new StorageFormatError(collection, version);
}
