export {
  type GroupMapping,
  type GroupRules,
  groupKey,
  loadGroupRules,
  PUBLIC_KEY,
  parseGroupRules,
} from "./access-groups.js";
export { type ChunkOptions, chunkPage } from "./chunk-page.js";
export { validateCollectionName } from "./collection-name.js";
export { type ChromaClientLike, type ChromaTarget, EMBEDDING_METADATA_KEY } from "./docs-collection.js";
export { IngestError } from "./errors.js";
export {
  type IngestOptions,
  type IngestPhase,
  type IngestProgress,
  type IngestSummary,
  ingestDocs,
} from "./ingest-docs.js";
export { CHUNKER_VERSION, chunkId, currentChunking, pageRevision } from "./page-revision.js";
export type { GroupsMappingSource, GroupsSummary } from "./stored-groups.js";
