import { DEFAULT_CHROMA_LIMITS } from "./limits.js";

/** True when a Chroma server answers `GET /api/v2/heartbeat` at `url`. Never throws. */
export async function isChromaAlive(
  url: string,
  timeoutMs = DEFAULT_CHROMA_LIMITS.heartbeatRequestTimeoutMs,
): Promise<boolean> {
  try {
    const response = await fetch(new URL("/api/v2/heartbeat", url), {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return false;
    const body = (await response.json()) as Record<string, unknown>;
    return typeof body["nanosecond heartbeat"] === "number";
  } catch {
    return false;
  }
}
