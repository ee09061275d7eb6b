import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { Model } from "@atrium/spec";
import { ConfigError } from "@atrium/spec";
import { type AiSdkModelOptions, fromAiSdk } from "./ai-sdk-model.js";
import { withRetries } from "./retry.js";
import { scriptedModelFromFile } from "./scripted-model-file.js";

export const DEFAULT_OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1";
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1";

export type ModelEnv = Record<string, string | undefined>;

/** Everything `fromAiSdk` takes except what the model string decides. */
export type ResolveModelOptions = Omit<AiSdkModelOptions, "id" | "apiKeyEnvVar" | "toolResultImages">;

export const MODEL_STRING_FORMS = [
  "openai:<model>                       e.g. openai:gpt-4o-mini (needs OPENAI_API_KEY; OPENAI_BASE_URL optional)",
  "anthropic:<model>                    e.g. anthropic:claude-sonnet-4-5 (needs ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL optional)",
  `ollama:<model>                       e.g. ollama:llama3.2 (OLLAMA_BASE_URL, default ${DEFAULT_OLLAMA_BASE_URL})`,
  "openai-compatible:<baseURL>#<model>  e.g. openai-compatible:http://127.0.0.1:8000/v1#qwen2.5-7b (OPENAI_COMPATIBLE_API_KEY optional)",
  "scripted:<path>                      a JSON file of canned replies (offline demo, tests)",
].join("\n  ");

/**
 * A model from a string, configured from `env`: "openai:gpt-4o-mini", "anthropic:claude-...",
 * "ollama:llama3.2", "openai-compatible:http://host:port/v1#model-name" or
 * "scripted:replies.json". The model's `id` is the string itself. Provider models are retried
 * (see `withRetries`) unless `options.retry` is false.
 */
export function resolveModel(
  modelString: string,
  env: ModelEnv = process.env,
  options: ResolveModelOptions = {},
): Model {
  const colon = modelString.indexOf(":");
  const provider = colon === -1 ? "" : modelString.slice(0, colon);
  const rest = colon === -1 ? "" : modelString.slice(colon + 1).trim();
  if (!rest) throw unknownModelString(modelString);
  const id = `${provider}:${rest}`;
  switch (provider) {
    case "openai": {
      const apiKey = requireKey(env, "OPENAI_API_KEY", id);
      // Base URLs are always passed: left undefined, the providers would read process.env, not `env`.
      const baseURL = checkBaseUrl(
        optional(env.OPENAI_BASE_URL) ?? DEFAULT_OPENAI_BASE_URL,
        id,
        "OPENAI_BASE_URL",
      );
      const openai = createOpenAI({ apiKey, baseURL });
      // The chat completions API, not the responses API: it honours stop sequences, which code agents need.
      return fromAiSdk(openai.chat(rest), { ...options, id, apiKeyEnvVar: "OPENAI_API_KEY" });
    }
    case "anthropic": {
      const apiKey = requireKey(env, "ANTHROPIC_API_KEY", id);
      const baseURL = checkBaseUrl(
        optional(env.ANTHROPIC_BASE_URL) ?? DEFAULT_ANTHROPIC_BASE_URL,
        id,
        "ANTHROPIC_BASE_URL",
      );
      const anthropic = createAnthropic({ apiKey, baseURL });
      return fromAiSdk(anthropic(rest), {
        ...options,
        id,
        apiKeyEnvVar: "ANTHROPIC_API_KEY",
        toolResultImages: "inline",
      });
    }
    case "ollama": {
      const baseURL = checkBaseUrl(
        optional(env.OLLAMA_BASE_URL) ?? DEFAULT_OLLAMA_BASE_URL,
        id,
        "OLLAMA_BASE_URL",
      );
      const ollama = createOpenAICompatible({ name: "ollama", baseURL, includeUsage: true });
      return fromAiSdk(ollama.chatModel(rest), { ...options, id });
    }
    case "openai-compatible": {
      const hash = rest.lastIndexOf("#");
      const modelName = hash === -1 ? "" : rest.slice(hash + 1).trim();
      if (!modelName) {
        throw new ConfigError(
          `Model string ${JSON.stringify(modelString)} has no model name: write openai-compatible:<baseURL>#<model>, e.g. openai-compatible:http://127.0.0.1:8000/v1#qwen2.5-7b`,
        );
      }
      const baseURL = checkBaseUrl(rest.slice(0, hash), id);
      const compatible = createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        apiKey: optional(env.OPENAI_COMPATIBLE_API_KEY),
        includeUsage: true,
      });
      return fromAiSdk(compatible.chatModel(modelName), {
        ...options,
        id,
        apiKeyEnvVar: "OPENAI_COMPATIBLE_API_KEY",
      });
    }
    case "scripted": {
      const model = scriptedModelFromFile(rest, id);
      return options.retry === false ? model : withRetries(model, options.retry);
    }
    default:
      throw unknownModelString(modelString);
  }
}

function unknownModelString(modelString: string): ConfigError {
  return new ConfigError(
    `Unknown model string ${JSON.stringify(modelString)}; use one of:\n  ${MODEL_STRING_FORMS}`,
  );
}

function requireKey(env: ModelEnv, name: string, id: string): string {
  const key = optional(env[name]);
  if (key) return key;
  throw new ConfigError(`${id} needs an API key: set the environment variable ${name}`);
}

function checkBaseUrl(value: string, id: string, envVar?: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === "http:" || url.protocol === "https:")) return value.replace(/\/+$/, "");
  const source = envVar ? ` (from ${envVar})` : "";
  throw new ConfigError(
    `${id}: the base URL ${JSON.stringify(value)}${source} is not an http(s) URL; give one like http://127.0.0.1:8000/v1`,
  );
}

function optional(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
