export { PalaceAccess } from "./access/palace-access.js";
export {
  type PalaceGrants,
  palaceGrantsSchema,
  parsePalaceGrants,
  type WingGrant,
} from "./access/palace-grants.js";
export type { RepairOptions, RepairReport } from "./core/maintenance.js";
export type {
  DrawerPage,
  DrawerUpdate,
  DuplicateCheck,
  DuplicateMatch,
  FileResult,
  ListOptions,
  PalaceStatus,
  RoomCount,
  WingCount,
} from "./core/palace-types.js";
export { PALACE_FORMAT_VERSION, type PalaceConfig, type PalacePaths, palacePaths } from "./db/palace-dir.js";
export {
  DIARY_HALL,
  type DiaryEntry,
  type DiaryReadOptions,
  type DiaryWriteOptions,
  diaryRead,
  diaryWing,
  diaryWrite,
} from "./diary/index.js";
export type { Drawer, DrawerDraft, DrawerMetadata } from "./drawers/drawer.js";
export { contentHash, drawerId } from "./drawers/drawer-id.js";
export { isPalaceError, PalaceError, type PalaceErrorCode } from "./errors.js";
export { type ExportReport, exportPalace, exportRows } from "./export/export-palace.js";
export { EXPORT_FORMAT_VERSION, type PalaceExportRow } from "./export/export-rows.js";
export { type ImportReport, importPalace } from "./export/import-palace.js";
export * from "./kg/index.js";
export {
  buildWakeUp,
  DEFAULT_WAKE_UP_TOKENS,
  deepSearch,
  type EssentialDrawer,
  type EssentialsLayer,
  essentialsLayer,
  type IdentityLayer,
  identityLayer,
  type LayerScope,
  MEMORIES_HEADER,
  type PalaceWakeUpOptions,
  recallRoom,
  wakeUp,
} from "./layers/index.js";
export {
  DEFAULT_KNOWLEDGE_GRAPH_LIMITS,
  DEFAULT_MINE_LIMITS,
  DEFAULT_PALACE_LIMITS,
  type KnowledgeGraphLimits,
  type MineLimits,
  type PalaceLimits,
  resolveKnowledgeGraphLimits,
  resolveMineLimits,
  resolvePalaceLimits,
} from "./limits.js";
export {
  checkTokenGrants,
  identityView,
  type PalaceMcpHttpOptions,
  type PalaceMcpOptions,
  servePalaceMcp,
  servePalaceMcpHttp,
} from "./mcp/palace-mcp-server.js";
export {
  DEFAULT_MEMORY_ROOM,
  DEFAULT_MEMORY_WING,
  PalaceMemoryStore,
  type PalaceMemoryStoreOptions,
} from "./memory-store.js";
export * from "./mining/index.js";
export { type InitPalaceOptions, initPalace, type OpenPalaceOptions, openPalace } from "./open-palace.js";
export { Palace } from "./palace.js";
export { repairPalace } from "./repair.js";
export type { DrawerFilter, SearchHit, SearchMode, SearchOptions } from "./search/hybrid-search.js";
export type { FactView } from "./tools/kg-tools.js";
export type { RecallToolHit } from "./tools/memory-tools.js";
export { palaceTools } from "./tools/palace-tools.js";
export type { PalaceTool, ToolAnnotations } from "./tools/tool-annotations.js";
export type { PalaceToolsOptions } from "./tools/tool-options.js";
export {
  type DerivedTunnel,
  type Tunnel,
  type TunnelDestination,
  type TunnelEnd,
  type TunnelInput,
  type TunnelMap,
  type TunnelScope,
  Tunnels,
  tunnelId,
} from "./tunnels/index.js";
export { PalaceView, type PalaceViewStatus } from "./view/palace-view.js";
