import { type ProviderSpecSyntax, parseProviderSpec, providerApiKey, providerBaseUrl } from "@atrium/kit";
import type { Embedding } from "@atrium/spec";
import { HASHING_DEFAULT_DIMENSIONS } from "../tuning.js";
import { loadedAiSdkEmbedding } from "./ai-sdk-embedding.js";
import { hashingEmbedding } from "./hashing-embedding.js";

export const DEFAULT_OLLAMA_EMBEDDING_BASE_URL = "http://127.0.0.1:11434/v1";
export const DEFAULT_OPENAI_EMBEDDING_BASE_URL = "https://api.openai.com/v1";

export type EmbeddingEnv = Record<string, string | undefined>;

export const EMBEDDING_SPEC_FORMS = [
  `hashing                              the offline default (feature hashing, ${HASHING_DEFAULT_DIMENSIONS} dimensions; also hashing-v1-<N>)`,
  "openai:<model>                       e.g. openai:text-embedding-3-small (needs OPENAI_API_KEY; OPENAI_BASE_URL optional)",
  `ollama:<model>                       e.g. ollama:nomic-embed-text (OLLAMA_BASE_URL, default ${DEFAULT_OLLAMA_EMBEDDING_BASE_URL})`,
  "openai-compatible:<baseURL>#<model>  e.g. openai-compatible:http://127.0.0.1:8000/v1#bge-m3 (OPENAI_COMPATIBLE_API_KEY optional)",
].join("\n  ");

const EMBEDDING_SPEC_SYNTAX: ProviderSpecSyntax = {
  subject: "embedding",
  providers: ["openai", "ollama", "openai-compatible"],
  forms: EMBEDDING_SPEC_FORMS.split("\n  "),
  compatibleExample: "openai-compatible:http://127.0.0.1:8000/v1#bge-m3",
};

const HASHING_ID = /^hashing-v1-(\d+)$/;

/**
 * An embedding from a spec string, configured from `env`: "hashing" (the offline default),
 * "openai:text-embedding-3-small", "ollama:nomic-embed-text" or
 * "openai-compatible:http://host:port/v1#model". The embedding's `id` (what a collection
 * records) is the spec itself — so the recorded id of a collection resolves back to its
 * embedding — except for hashing, whose id names its settings ("hashing-v1-384") and resolves
 * too. The spec, key and URL are checked here; the provider package is loaded on first use.
 */
export function resolveEmbedding(spec: string, env: EmbeddingEnv = process.env): Embedding {
  const trimmed = spec.trim();
  if (trimmed === "hashing") return hashingEmbedding();
  const hashing = HASHING_ID.exec(trimmed);
  if (hashing) return hashingEmbedding({ dimensions: Number(hashing[1]) });
  const { provider, model, baseURL, id } = parseProviderSpec(spec, EMBEDDING_SPEC_SYNTAX);
  switch (provider) {
    case "openai": {
      const apiKey = providerApiKey(env, "OPENAI_API_KEY", id);
      // Base URLs are always passed: left undefined, the providers would read process.env, not `env`.
      const openaiBaseURL = envBaseUrl(env, "OPENAI_BASE_URL", DEFAULT_OPENAI_EMBEDDING_BASE_URL, id);
      return loadedAiSdkEmbedding(
        async () => {
          const { createOpenAI } = await import("@ai-sdk/openai");
          return createOpenAI({ apiKey, baseURL: openaiBaseURL }).embeddingModel(model);
        },
        { id },
      );
    }
    case "ollama": {
      const ollamaBaseURL = envBaseUrl(env, "OLLAMA_BASE_URL", DEFAULT_OLLAMA_EMBEDDING_BASE_URL, id);
      return compatibleEmbedding("ollama", ollamaBaseURL, model, undefined, id);
    }
    default:
      // "openai-compatible", the one provider left in EMBEDDING_SPEC_SYNTAX; the parser checked its URL.
      return compatibleEmbedding(
        "openai-compatible",
        baseURL as string,
        model,
        optional(env.OPENAI_COMPATIBLE_API_KEY),
        id,
      );
  }
}

function envBaseUrl(env: EmbeddingEnv, envVar: string, fallback: string, id: string): string {
  const fromEnv = optional(env[envVar]);
  return fromEnv ? providerBaseUrl(fromEnv, id, envVar) : fallback;
}

function compatibleEmbedding(
  name: string,
  baseURL: string,
  model: string,
  apiKey: string | undefined,
  id: string,
): Embedding {
  return loadedAiSdkEmbedding(
    async () => {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name, baseURL, apiKey }).embeddingModel(model);
    },
    { id },
  );
}

function optional(value: string | undefined): string | undefined {
  return value?.trim() || undefined;
}
