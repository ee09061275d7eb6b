/** The mining API the package exports: the run, its sink seam, the parsers and room assignment. */

export { ExportParseError } from "../errors.js";
export { parseChatGptExport } from "../formats/chatgpt.js";
export {
  type ConversationChunk,
  type ConversationChunking,
  chunkConversation,
} from "../formats/chunk-conversation.js";
export { chunkProjectFile, type FileChunk } from "../formats/chunk-project-file.js";
export { parseClaudeAiExport } from "../formats/claude-ai.js";
export { parseClaudeCodeTranscript } from "../formats/claude-code.js";
export { parseCodexRollout } from "../formats/codex.js";
export {
  CONVERSATION_FORMATS,
  type Conversation,
  type ConversationFormat,
  type ConversationMessage,
  type MessageRole,
  type ParsedExport,
  type ParseProblem,
} from "../formats/conversation.js";
export { detectFormat } from "../formats/detect-format.js";
export { parsePlainTranscript } from "../formats/plain-text.js";
export { parseSlackDay, slackUsers } from "../formats/slack.js";
export type {
  DrawerSink,
  RemoveSourceResult,
  ReplaceSourceResult,
  SourceRecord,
} from "./drawer-sink.js";
export { MemoryDrawerSink } from "./memory-drawer-sink.js";
export { mine, mineEvents } from "./mine.js";
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
export { type ProjectFile, type WalkEntry, walkProject } from "./project-walker.js";
export { FALLBACK_ROOM, parseRoomRules, RoomClassifier, type RoomRule } from "./rooms.js";
