export type { Collection, Metadata, Where, WhereDocument } from "chromadb";
// The chromadb client types callers need, so packages on top use one pinned chromadb through us.
export { ChromaClient } from "chromadb";
export { connectChroma } from "./connect-chroma.js";
export {
  type AiSdkEmbeddingOptions,
  aiSdkEmbedding,
  loadedAiSdkEmbedding,
} from "./embedding/ai-sdk-embedding.js";
export { chromaEmbeddingFunction } from "./embedding/chroma-embedding-function.js";
export { embedText, type HashingEmbeddingOptions, hashingEmbedding } from "./embedding/hashing-embedding.js";
export {
  DEFAULT_OLLAMA_EMBEDDING_BASE_URL,
  DEFAULT_OPENAI_EMBEDDING_BASE_URL,
  EMBEDDING_SPEC_FORMS,
  type EmbeddingEnv,
  resolveEmbedding,
} from "./embedding/resolve-embedding.js";
export {
  asFilterRejected,
  ChromaFilterRejectedError,
  ChromaStartError,
  ChromaUnreachableError,
} from "./errors.js";
export { isChromaAlive } from "./heartbeat.js";
export * as chromaLimits from "./limits.js";
export {
  type ChromaServer,
  type StartChromaServerOptions,
  startChromaServer,
} from "./server/chroma-server.js";
export type { ChromaServerEvent, ChromaServerHealth, ChromaServerState } from "./server/server-supervisor.js";
export { classifyStartFailure, describeStartFailure, type StartFailureKind } from "./server/start-failure.js";
export * as chromaTuning from "./tuning.js";
