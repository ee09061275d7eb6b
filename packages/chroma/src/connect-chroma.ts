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
  return parsed;
}
