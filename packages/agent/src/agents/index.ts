export { ATTR, SPAN, TRACER_NAME } from "../observability/index.js";
export { AgentMemory, type ToMessagesOptions } from "./agent-memory.js";
export {
  CodeAgent,
  type CodeAgentOptions,
  type CreateExecutor,
  type ResumeOptions,
} from "./code-agent.js";
export {
  type CodeBlockFormat,
  type CodeBlockStyle,
  type CodeBlockTags,
  codeBlockFormat,
  type ExtractedCode,
  extractCode,
  noCodeBlockMessage,
} from "./code-blocks.js";
export { type ImageInput, loadImages, sniffImageType } from "./load-images.js";
export { LONG_TERM_MEMORY_HEADER, type LongTermMemoryOptions } from "./long-term-memory.js";
export {
  type ManagedAgentInput,
  type ManagedAgentToolOptions,
  managedAgentTool,
} from "./managed-agent-tool.js";
export type {
  ActionStep,
  FinalAnswerStep,
  MemoryStep,
  PlanningStep,
  SerializedMemory,
  StepTiming,
  TaskStep,
  ToolCallRecord,
} from "./memory-steps.js";
export { MultiStepAgent, type ResumePoint, type RunContext } from "./multi-step-agent.js";
export { codeObservation, formatExecutionError, formatValue } from "./observation.js";
export type {
  AgentOptions,
  FinalAnswerCheck,
  FinalAnswerCheckContext,
  RunOptions,
  RunResult,
  StepCallback,
} from "./run-types.js";
export { imagePartOf, type StoredImage, storeImage } from "./stored-image.js";
export { ToolCallingAgent } from "./tool-calling-agent.js";
export { truncateMiddle } from "./truncate.js";
