import { ConfigError } from "@atrium/spec";
import { ChromaClient } from "chromadb";
import { ChromaUnreachableError } from "./errors.js";
import { isChromaAlive } from "./heartbeat.js";

/**
 * A chromadb client for the server at `url`, checked with one heartbeat so a wrong URL fails
 * here, with a message naming it, instead of deep inside the first query.
 */
export async function connectChroma(url: string): Promise<ChromaClient> {
  const parsed = parseChromaUrl(url);
  if (!(await isChromaAlive(parsed.href))) {
    throw new ChromaUnreachableError(
      url,
      `No Chroma server answers at ${url} (GET /api/v2/heartbeat failed). Start one with ` +
        "`startChromaServer({ path })` from @atrium/chroma or `npx chroma run --path <dir>`, or pass a local data dir instead of a URL.",
    );
  }
  return new ChromaClient({
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port: Number(parsed.port || (parsed.protocol === "https:" ? 443 : 80)),
    ssl: parsed.protocol === "https:",
  });
}

function parseChromaUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(
      `Invalid Chroma URL ${JSON.stringify(url)}: expected something like http://127.0.0.1:8000`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigError(`Invalid Chroma URL ${url}: the scheme must be http or https`);
  }
  // The client and the heartbeat address the server's /api/v2 from the root: a base path
  // (a proxy's /chroma) would be dropped silently and reach another service.
  if (parsed.pathname !== "/" || parsed.search) {
    throw new ConfigError(
      `Invalid Chroma URL ${url}: give the server's root (${parsed.origin}); a path or query is not supported`,
    );
  }
  return parsed;
}
