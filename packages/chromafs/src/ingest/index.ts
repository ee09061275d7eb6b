export { groupKey, PUBLIC_KEY } from "../collection-schema/access-keys.js";
export { validateCollectionName } from "../collection-schema/collection-name.js";
export {
  type ChromaClientLike,
  type ChromaTarget,
  EMBEDDING_METADATA_KEY,
} from "../collection-schema/docs-collection.js";
export {
  CHUNKER_VERSION,
  chunkId,
  currentChunking,
  pageRevision,
} from "../collection-schema/page-revision.js";
export {
  type GroupMapping,
  type GroupRules,
  loadGroupRules,
  parseGroupRules,
} from "../docs-folder/access-groups.js";
export { type ChunkOptions, chunkPage } from "../docs-folder/chunk-page.js";
export { IngestError } from "../errors.js";
export {
  type IngestOptions,
  type IngestPhase,
  type IngestProgress,
  type IngestSummary,
  ingestDocs,
} from "./ingest-docs.js";
export { ingestProgressBar } from "./progress-reporter.js";
export type { GroupsMappingSource, GroupsSummary } from "./stored-groups.js";
