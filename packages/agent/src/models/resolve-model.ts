import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { type ProviderSpecSyntax, parseProviderSpec, providerApiKey, providerBaseUrl } from "@atrium/kit";
import type { Model } from "@atrium/spec";
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

const MODEL_STRING_SYNTAX: ProviderSpecSyntax = {
  subject: "model string",
  providers: ["openai", "anthropic", "ollama", "openai-compatible", "scripted"],
  forms: MODEL_STRING_FORMS.split("\n  "),
  compatibleExample: "openai-compatible:http://127.0.0.1:8000/v1#qwen2.5-7b",
};

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
  const { provider, model, baseURL, id } = parseProviderSpec(modelString, MODEL_STRING_SYNTAX);
  switch (provider) {
    case "openai": {
      const apiKey = providerApiKey(env, "OPENAI_API_KEY", id);
      // Base URLs are always passed: left undefined, the providers would read process.env, not `env`.
      const openai = createOpenAI({
        apiKey,
        baseURL: envBaseUrl(env, "OPENAI_BASE_URL", DEFAULT_OPENAI_BASE_URL, id),
      });
      // The chat completions API, not the responses API: it honours stop sequences, which code agents need.
      return fromAiSdk(openai.chat(model), { ...options, id, apiKeyEnvVar: "OPENAI_API_KEY" });
    }
    case "anthropic": {
      const apiKey = providerApiKey(env, "ANTHROPIC_API_KEY", id);
      const anthropic = createAnthropic({
        apiKey,
        baseURL: envBaseUrl(env, "ANTHROPIC_BASE_URL", DEFAULT_ANTHROPIC_BASE_URL, id),
      });
      return fromAiSdk(anthropic(model), {
        ...options,
        id,
        apiKeyEnvVar: "ANTHROPIC_API_KEY",
        toolResultImages: "inline",
      });
    }
    case "ollama": {
      const ollama = createOpenAICompatible({
        name: "ollama",
        baseURL: envBaseUrl(env, "OLLAMA_BASE_URL", DEFAULT_OLLAMA_BASE_URL, id),
        includeUsage: true,
      });
      return fromAiSdk(ollama.chatModel(model), { ...options, id });
    }
    case "openai-compatible": {
      const compatible = createOpenAICompatible({
        name: "openai-compatible",
        baseURL: baseURL as string,
        apiKey: optional(env.OPENAI_COMPATIBLE_API_KEY),
        includeUsage: true,
      });
      return fromAiSdk(compatible.chatModel(model), {
        ...options,
        id,
        apiKeyEnvVar: "OPENAI_COMPATIBLE_API_KEY",
      });
    }
    default: {
      // "scripted", the one provider left in MODEL_STRING_SYNTAX: `model` is the reply file's path.
      const scripted = scriptedModelFromFile(model, id);
      return options.retry === false ? scripted : withRetries(scripted, options.retry);
    }
  }
}

function envBaseUrl(env: ModelEnv, envVar: string, fallback: string, id: string): string {
  const fromEnv = optional(env[envVar]);
  return fromEnv ? providerBaseUrl(fromEnv, id, envVar) : fallback;
}

function optional(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
