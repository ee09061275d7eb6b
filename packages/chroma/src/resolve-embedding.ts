import { ConfigError } from "@atrium/spec";
import { loadedAiSdkEmbedding } from "./ai-sdk-embedding.js";
import { type AtriumEmbedding, hashingEmbedding } from "./hashing-embedding.js";
import { HASHING_DEFAULT_DIMENSIONS } from "./limits.js";

export const DEFAULT_OLLAMA_EMBEDDING_BASE_URL = "http://127.0.0.1:11434/v1";
export const DEFAULT_OPENAI_EMBEDDING_BASE_URL = "https://api.openai.com/v1";

export type EmbeddingEnv = Record<string, string | undefined>;

export const EMBEDDING_SPEC_FORMS = [
  `hashing                              the offline default (feature hashing, ${HASHING_DEFAULT_DIMENSIONS} dimensions; also hashing-v1-<N>)`,
  "openai:<model>                       e.g. openai:text-embedding-3-small (needs OPENAI_API_KEY; OPENAI_BASE_URL optional)",
  `ollama:<model>                       e.g. ollama:nomic-embed-text (OLLAMA_BASE_URL, default ${DEFAULT_OLLAMA_EMBEDDING_BASE_URL})`,
  "openai-compatible:<baseURL>#<model>  e.g. openai-compatible:http://127.0.0.1:8000/v1#bge-m3 (OPENAI_COMPATIBLE_API_KEY optional)",
].join("\n  ");

const HASHING_ID = /^hashing-v1-(\d+)$/;

/**
 * An embedding from a spec string, configured from `env`: "hashing" (the offline default),
 * "openai:text-embedding-3-small", "ollama:nomic-embed-text" or
 * "openai-compatible:http://host:port/v1#model". The embedding's `id` (what a collection
 * records) is the spec itself — so the recorded id of a collection resolves back to its
 * embedding — except for hashing, whose id names its settings ("hashing-v1-384") and resolves
 * too. The spec, key and URL are checked here; the provider package is loaded on first use.
 */
export function resolveEmbedding(spec: string, env: EmbeddingEnv = process.env): AtriumEmbedding {
  const trimmed = spec.trim();
  if (trimmed === "hashing") return hashingEmbedding();
  const hashing = HASHING_ID.exec(trimmed);
  if (hashing) return hashingEmbedding({ dimensions: Number(hashing[1]) });
  const colon = trimmed.indexOf(":");
  const provider = colon === -1 ? "" : trimmed.slice(0, colon);
  const rest = colon === -1 ? "" : trimmed.slice(colon + 1).trim();
  if (!rest) throw unknownEmbeddingSpec(spec);
  const id = `${provider}:${rest}`;
  switch (provider) {
    case "openai": {
      const apiKey = requireKey(env, "OPENAI_API_KEY", id);
      // Base URLs are always passed: left undefined, the providers would read process.env, not `env`.
      const baseURL = checkBaseUrl(
        optional(env.OPENAI_BASE_URL) ?? DEFAULT_OPENAI_EMBEDDING_BASE_URL,
        id,
        "OPENAI_BASE_URL",
      );
      return loadedAiSdkEmbedding(
        async () => {
          const { createOpenAI } = await import("@ai-sdk/openai");
          return createOpenAI({ apiKey, baseURL }).embeddingModel(rest);
        },
        { id },
      );
    }
    case "ollama": {
      const baseURL = checkBaseUrl(
        optional(env.OLLAMA_BASE_URL) ?? DEFAULT_OLLAMA_EMBEDDING_BASE_URL,
        id,
        "OLLAMA_BASE_URL",
      );
      return compatibleEmbedding("ollama", baseURL, rest, undefined, id);
    }
    case "openai-compatible": {
      const hash = rest.lastIndexOf("#");
      const modelName = hash === -1 ? "" : rest.slice(hash + 1).trim();
      if (!modelName) {
        throw new ConfigError(
          `Embedding spec ${JSON.stringify(spec)} has no model name: write openai-compatible:<baseURL>#<model>, e.g. openai-compatible:http://127.0.0.1:8000/v1#bge-m3`,
        );
      }
      const baseURL = checkBaseUrl(rest.slice(0, hash), id);
      return compatibleEmbedding(
        "openai-compatible",
        baseURL,
        modelName,
        optional(env.OPENAI_COMPATIBLE_API_KEY),
        id,
      );
    }
    default:
      throw unknownEmbeddingSpec(spec);
  }
}

function compatibleEmbedding(
  name: string,
  baseURL: string,
  model: string,
  apiKey: string | undefined,
  id: string,
): AtriumEmbedding {
  return loadedAiSdkEmbedding(
    async () => {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name, baseURL, apiKey }).embeddingModel(model);
    },
    { id },
  );
}

function unknownEmbeddingSpec(spec: string): ConfigError {
  return new ConfigError(`Unknown embedding ${JSON.stringify(spec)}; use one of:\n  ${EMBEDDING_SPEC_FORMS}`);
}

function requireKey(env: EmbeddingEnv, name: string, id: string): string {
  const key = optional(env[name]);
  if (!key) throw new ConfigError(`${id} needs an API key: set the environment variable ${name}`);
  return key;
}

/** `value` without trailing slashes, if it is an http(s) URL. */
function checkBaseUrl(value: string, id: string, envVar?: string): string {
  const protocol = URL.canParse(value) ? new URL(value).protocol : "";
  if (protocol !== "http:" && protocol !== "https:") {
    throw new ConfigError(
      `${id}: the base URL ${JSON.stringify(value)}${envVar ? ` (from ${envVar})` : ""} is not an http(s) URL; give one like http://127.0.0.1:8000/v1`,
    );
  }
  return value.replace(/\/+$/, "");
}

function optional(value: string | undefined): string | undefined {
  return value?.trim() || undefined;
}
