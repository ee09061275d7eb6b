export { accessKey, isVisible, pruneTree } from "./access/visibility.js";
export { boundOutput } from "./agent/bounded-output.js";
export { DOCS_BASH_DESCRIPTION, type DocsBashToolOptions, docsBashTool } from "./agent/docs-bash-tool.js";
export { docsSearchTool } from "./agent/docs-search-tool.js";
export type { Access, DocStore, SearchHit, TextFilter } from "./doc-store/doc-store.js";
export { compileTextFilter } from "./doc-store/text-filter-matcher.js";
export {
  DocStoreError,
  isStoreUnavailable,
  PathTreeError,
  SessionWorkerLostError,
  StorageFormatError,
  StoreUnavailableError,
} from "./errors.js";
export { DocsFs, type DocsFsOptions } from "./fs/docs-fs.js";
export { PageCache } from "./fs/page-cache.js";
export { PageSource } from "./fs/page-source.js";
export { isPosixError, type PosixCode, PosixError } from "./fs/posix-error.js";
export { TreeCache, treeCacheFor } from "./fs/tree-cache.js";
export { TreeIndex } from "./fs/tree-index.js";
export type { GrepAcceleration } from "./grep/accelerate/grep-acceleration.js";
export type { GrepPlan } from "./grep/accelerate/grep-plan.js";
export { type PatternMode, patternToFilter } from "./grep/accelerate/pattern-filter.js";
export { createGrepCommands, planGrep } from "./grep/grep-command.js";
export * from "./ingest/index.js";
export * as limits from "./limits.js";
export {
  type DocsMcpHttpOptions,
  type DocsMcpOptions,
  openDocsMcpSession,
  serveDocsMcp,
  serveDocsMcpHttp,
} from "./mcp/docs-mcp-server.js";
export { createSearchCommand, formatSearchHits } from "./search/search-command.js";
export {
  type CommandResult,
  type DocsSession,
  type DocsSessionOptions,
  openDocsSession,
  STORE_UNAVAILABLE_EXIT_CODE,
} from "./session/docs-session.js";
export type { DocsShell } from "./session/docs-shell.js";
export {
  type SessionPoolLimits,
  SessionWorkerPool,
  type SessionWorkerPoolOptions,
} from "./session-pool/session-worker-pool.js";
export {
  ChromaDocStore,
  type ChromaDocStoreOptions,
  type FollowedServer,
} from "./store/chroma/chroma-doc-store.js";
export { LocalFolderStore } from "./store/local-folder-store.js";
export {
  type ChunkingRecord,
  PATH_TREE_ID,
  type PathTree,
  type PathTreeFile,
  type StoredPathTree,
} from "./tree/path-tree.js";
export { FORMAT_METADATA_KEY, STORAGE_FORMAT_VERSION } from "./tree/storage-format.js";
export * as tuning from "./tuning.js";
