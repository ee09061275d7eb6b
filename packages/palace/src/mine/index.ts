/** The mining API the package exports: the run, its sink seam, the parsers and room assignment. */

export {
  type ConversationChunk,
  type ConversationChunking,
  chunkConversation,
} from "../miners/chunk-conversation.js";
export { chunkProjectFile, type FileChunk } from "../miners/chunk-project-file.js";
export {
  CONVERSATION_FORMATS,
  type Conversation,
  type ConversationFormat,
  type ConversationMessage,
  type MessageRole,
  type ParsedExport,
  type ParseProblem,
} from "../miners/conversation.js";
export { detectFormat } from "../miners/detect-format.js";
export { ExportParseError } from "../miners/export-parse-error.js";
export { parseChatGptExport } from "../miners/formats/chatgpt.js";
export { parseClaudeAiExport } from "../miners/formats/claude-ai.js";
export { parseClaudeCodeTranscript } from "../miners/formats/claude-code.js";
export { parseCodexRollout } from "../miners/formats/codex.js";
export { parsePlainTranscript } from "../miners/formats/plain-text.js";
export { parseSlackDay, slackUsers } from "../miners/formats/slack.js";
export { type ProjectFile, type WalkEntry, walkProject } from "../miners/project-walker.js";
export { FALLBACK_ROOM, parseRoomRules, RoomClassifier, type RoomRule } from "../miners/rooms.js";
export type {
  DrawerSink,
  RemoveSourceResult,
  ReplaceSourceResult,
  SourceRecord,
} from "./drawer-sink.js";
export { MemoryDrawerSink } from "./memory-drawer-sink.js";
export { mine, mineEvents } from "./mine.js";
export { DEFAULT_MINE_LIMITS, type MineLimits, resolveMineLimits } from "./mine-limits.js";
export {
  formatMineError,
  type MineError,
  type MineEvent,
  type MineExclusionReason,
  type MineMode,
  type MineOptions,
  type MineResult,
} from "./mine-types.js";
export {
  type ProgressBarOptions,
  type ProgressStream,
  progressBar,
  summary as mineSummary,
} from "./progress-bar.js";
