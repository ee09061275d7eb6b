import { HEARTBEAT_REQUEST_TIMEOUT_MS } from "./limits.js";

/** True when a Chroma server answers `GET /api/v2/heartbeat` at `url`. Never throws. */
export async function isChromaAlive(url: string, timeoutMs = HEARTBEAT_REQUEST_TIMEOUT_MS): Promise<boolean> {
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
