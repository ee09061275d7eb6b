// The demo's core, for its CLI and the web UI built on it.
export * from "./assistant/assistant-events.js";
export {
  type AskOptions,
  type Assistant,
  type AssistantOptions,
  createAssistant,
} from "./assistant/create-assistant.js";
export type {
  AssistantMemory,
  ForgetResult,
  MemoryDrawerView,
  MemoryFactView,
  MemoryOverview,
  RecalledMemory,
  SessionTranscript,
} from "./assistant/memory-seam.js";
export { DEFAULT_COLLECTION, DEFAULT_CORPUS_DIR, DEFAULT_DATA_DIR } from "./docs/default-locations.js";
export {
  type DocsLibrary,
  type DocsLibraryOptions,
  type DocsUser,
  type IngestReport,
  openDocsLibrary,
} from "./docs/docs-library.js";
export { DEFAULT_DEMO_LIMITS, type DemoLimits, resolveDemoLimits } from "./limits.js";
export { MEMORIES_ROOM, SESSIONS_ROOM } from "./memory/memory-rooms.js";
export {
  openPalaceMemory,
  PalaceMemory,
  type PalaceMemoryOptions,
  palaceDirIn,
} from "./memory/palace-memory.js";
export { type DemoModel, resolveDemoModel } from "./models/resolve-demo-model.js";
export { SCRIPTED_DOCS_MODEL_ID, scriptedDocsModel } from "./models/scripted-docs-model.js";
