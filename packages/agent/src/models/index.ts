export type { AiSdkLanguageModel } from "./ai-sdk-language-model.js";
export type { ToolResultImages } from "./ai-sdk-messages.js";
export { AiSdkModel, type AiSdkModelOptions, fromAiSdk } from "./ai-sdk-model.js";
export {
  isRetryableStatus,
  type ModelErrorContext,
  ProviderError,
  retryAfterFromHeaders,
  toModelError,
} from "./model-error.js";
export {
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_OLLAMA_BASE_URL,
  DEFAULT_OPENAI_BASE_URL,
  MODEL_STRING_FORMS,
  type ModelEnv,
  type ResolveModelOptions,
  resolveModel,
} from "./resolve-model.js";
export { type RetryEvent, type RetryOptions, retryDelayMs, withRetries } from "./retry.js";
export {
  cutAtStopSequence,
  type ScriptedAssistantReply,
  ScriptedModel,
  type ScriptedModelCall,
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptedReplyFunction,
  type ScriptedToolCall,
  splitIntoDeltas,
} from "./scripted-model.js";
export { SCRIPTED_FILE_FORMAT, scriptedModelFromFile } from "./scripted-model-file.js";
