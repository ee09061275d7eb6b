/**
 * What a user of the agent needs from `@atrium/spec`, re-exported so one import does: the
 * errors to catch (and `rethrowIfFatal` for their own broad catches), the message and image
 * shapes with their helpers, and the contracts an agent is built from. The tool helpers
 * (`richToolResult`, `isRichToolResult`) come through `./tools`.
 */

export type {
  AgentEvent,
  AgentEventType,
  CodeExecutor,
  ExecutionResult,
  GenerateOptions,
  MemoryStore,
  Model,
  ModelResponse,
  RichToolResult,
  RunState,
  Tool,
  ToolContext,
  ToolProgress,
  Usage,
} from "@atrium/spec";
export {
  AbortError,
  type AssistantMessage,
  AtriumError,
  type AtriumErrorOptions,
  ClosedError,
  ConfigError,
  type ContentPart,
  type ErrorCode,
  ExecutorBusyError,
  errorMessage,
  type ImagePart,
  imagesOf,
  isAtriumError,
  isFatalError,
  LimitError,
  type Message,
  ModelError,
  ParseError,
  rethrowIfFatal,
  SecurityError,
  type SerializedError,
  type SystemMessage,
  serializeError,
  type TextPart,
  type ToolCall,
  ToolError,
  type ToolResultMessage,
  textOf,
  type UserMessage,
  ValidationError,
  type ValidationIssue,
} from "@atrium/spec";
