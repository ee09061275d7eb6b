import { ConfigError } from "@atrium/spec";

/**
 * Provider strings ("openai:gpt-4o-mini", "ollama:nomic-embed-text",
 * "openai-compatible:http://127.0.0.1:8000/v1#qwen2.5-7b") name models and embeddings alike;
 * this is the one parser both resolvers use, so the two accept and explain the same syntax.
 */

/** The provider whose spec carries its own base URL: `openai-compatible:<baseURL>#<model>`. */
export const OPENAI_COMPATIBLE_PROVIDER = "openai-compatible";

export interface ProviderSpec {
  /** The part before the first colon, e.g. "openai". */
  provider: string;
  /** The model name (for "openai-compatible", the part after the last `#`). */
  model: string;
  /** Only for "openai-compatible": the http(s) URL before the `#`, without trailing slashes. */
  baseURL?: string;
  /** `provider:rest` with the whitespace around both parts removed: the stable name of the spec. */
  id: string;
}

/** What a caller accepts, so that a refusal names exactly its own forms. */
export interface ProviderSpecSyntax {
  /** What the string names, as used in messages: "model string", "embedding". */
  subject: string;
  /** The providers accepted before the colon. */
  providers: readonly string[];
  /** One line per accepted form, listed when a spec is refused. */
  forms: readonly string[];
  /** A full openai-compatible example, shown when its `#<model>` part is missing. */
  compatibleExample: string;
}

/**
 * Splits `provider:model` (or `openai-compatible:<baseURL>#<model>`) for the providers `syntax`
 * accepts. Anything else is a ConfigError listing the accepted forms; a missing `#<model>` or a
 * base URL that is not http(s) gets its own message naming the fix.
 */
export function parseProviderSpec(spec: string, syntax: ProviderSpecSyntax): ProviderSpec {
  const trimmed = typeof spec === "string" ? spec.trim() : "";
  const colon = trimmed.indexOf(":");
  const provider = colon === -1 ? "" : trimmed.slice(0, colon).trim();
  const rest = colon === -1 ? "" : trimmed.slice(colon + 1).trim();
  if (!rest || !syntax.providers.includes(provider)) {
    throw new ConfigError(
      `Unknown ${syntax.subject} ${JSON.stringify(spec)}; use one of:\n  ${syntax.forms.join("\n  ")}`,
    );
  }
  const id = `${provider}:${rest}`;
  if (provider !== OPENAI_COMPATIBLE_PROVIDER) return { provider, model: rest, id };
  const hash = rest.lastIndexOf("#");
  const model = hash === -1 ? "" : rest.slice(hash + 1).trim();
  if (!model) {
    throw new ConfigError(
      `${capitalize(syntax.subject)} ${JSON.stringify(spec)} has no model name: write ${OPENAI_COMPATIBLE_PROVIDER}:<baseURL>#<model>, e.g. ${syntax.compatibleExample}`,
    );
  }
  return { provider, model, baseURL: providerBaseUrl(rest.slice(0, hash).trim(), id), id };
}

/**
 * `value` without trailing slashes if it is an http(s) URL; else a ConfigError naming the spec
 * and, for a URL read from the environment, the variable it came from.
 */
export function providerBaseUrl(value: string, id: string, envVar?: string): string {
  const protocol = URL.canParse(value) ? new URL(value).protocol : "";
  if (protocol !== "http:" && protocol !== "https:") {
    const source = envVar ? ` (from ${envVar})` : "";
    throw new ConfigError(
      `${id}: the base URL ${JSON.stringify(value)}${source} is not an http(s) URL; give one like http://127.0.0.1:8000/v1`,
    );
  }
  return value.replace(/\/+$/, "");
}

/** An API key from `env`, or a ConfigError naming the variable to set. */
export function providerApiKey(env: Record<string, string | undefined>, name: string, id: string): string {
  const key = env[name]?.trim();
  if (!key) throw new ConfigError(`${id} needs an API key: set the environment variable ${name}`);
  return key;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
