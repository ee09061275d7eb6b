import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { ConfigError, errorMessage } from "@atrium/spec";
import { DEFAULT_MCP_LIMITS } from "../limits.js";
import type { McpHttpAuth, McpIdentity } from "./client-identity.js";

/** A token shorter than this is refused by `hashToken`: bearer tokens must not be guessable. */
export const MIN_TOKEN_CHARS = 16;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The form a tokens file stores a token in: SHA-256 of its UTF-8 bytes, lowercase hex. The file
 * holds no usable secret, so reading it (a backup, a log) does not let anyone in.
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** `hashToken` for a token a person chose, refused when it is too short or has spaces. */
export function hashNewToken(token: string): string {
  if (token.length < MIN_TOKEN_CHARS) {
    throw new ConfigError(
      `a token needs at least ${MIN_TOKEN_CHARS} characters, got ${token.length}; make one with \`openssl rand -hex 32\``,
    );
  }
  if (/\s/.test(token)) throw new ConfigError("a token must not contain spaces or line breaks");
  return hashToken(token);
}

/** Tokens by their SHA-256, as read from a tokens file. */
export interface TokensAuth extends McpHttpAuth {
  /** How many tokens the file holds. */
  readonly size: number;
  /** Every identity the file names, so a server can check their grants before it listens. */
  identities(): McpIdentity[];
}

/**
 * Parses a tokens file:
 * `{ "tokens": { "<sha256 hex of the token>": { "identity": "alice", "groups": ["staff"] } } }`.
 * Every mistake is a ConfigError naming `source`, the entry and what to write instead.
 */
export function parseTokens(text: string, source: string): TokensAuth {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${source}: not valid JSON (${errorMessage(error)})`);
  }
  const fail = (what: string): never => {
    throw new ConfigError(
      `${source}: ${what}; expected {"tokens": {"<sha256 hex>": {"identity": "alice", "groups": ["staff"]}}}`,
    );
  };
  if (!isPlainObject(json)) return fail("the file must hold a JSON object");
  const extra = Object.keys(json).filter((key) => key !== "tokens");
  if (extra.length > 0) fail(`unknown field "${extra[0]}"`);
  if (!isPlainObject(json.tokens)) return fail(`"tokens" must be an object`);
  const byHash = new Map<string, McpIdentity>();
  for (const [hash, entry] of Object.entries(json.tokens)) {
    const at = `tokens["${hash.length > 70 ? `${hash.slice(0, 70)}…` : hash}"]`;
    if (!SHA256_HEX.test(hash)) {
      fail(
        `${at}: a key must be a token's SHA-256 as 64 lowercase hex digits (atrium-docs hash-token prints it)`,
      );
    }
    if (!isPlainObject(entry)) return fail(`${at} must be an object`);
    const unknown = Object.keys(entry).filter((key) => !["identity", "groups", "grants"].includes(key));
    if (unknown.length > 0) fail(`${at}: unknown field "${unknown[0]}"`);
    if (typeof entry.identity !== "string" || entry.identity.trim() === "") {
      fail(`${at}.identity must be a non-empty string naming who holds the token`);
    }
    const groups = entry.groups ?? [];
    if (!Array.isArray(groups) || groups.some((group) => typeof group !== "string" || group === "")) {
      return fail(`${at}.groups must be an array of non-empty strings`);
    }
    if (entry.grants !== undefined && !isPlainObject(entry.grants)) {
      fail(`${at}.grants must be an object, e.g. {"read": ["alice"], "write": ["alice"]}`);
    }
    const identity: McpIdentity = {
      name: entry.identity as string,
      groups: Object.freeze([...(groups as string[])]),
      ...(entry.grants === undefined
        ? {}
        : { grants: Object.freeze({ ...(entry.grants as Record<string, unknown>) }) }),
    };
    byHash.set(hash, Object.freeze(identity));
  }
  return {
    size: byHash.size,
    identities: () => [...byHash.values()],
    verify: (token) => byHash.get(hashToken(token)),
  };
}

/**
 * Reads and parses a tokens file (see `parseTokens`), at most `maxTokensFileBytes`. Synchronous:
 * it is read once at start, before anything listens.
 */
export function loadTokensFile(path: string): TokensAuth {
  const max = DEFAULT_MCP_LIMITS.maxTokensFileBytes;
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    throw new ConfigError(`tokens file ${path}: ${errorMessage(error)}`);
  }
  if (size > max) throw new ConfigError(`tokens file ${path} is ${size} bytes; the limit is ${max}`);
  return parseTokens(readFileSync(path, "utf8"), `tokens file ${path}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
