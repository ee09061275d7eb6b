/**
 * The messages between a host and an object it serves from inside a sandboxed process (see
 * remote-endpoint.ts for the host's side, serve-remote.ts for the sandbox's). The only module
 * both sides share. A message may carry raw bytes (`attachment`): they travel as a bytes frame
 * right before the message's JSON frame.
 */

export type HostToRemote =
  | { t: "call"; id: number; method: string; args: unknown[]; attached?: true }
  | { t: "notify"; method: string; args: unknown[]; attached?: true };

export interface RemoteErrorValue {
  name: string;
  message: string;
}

export type RemoteToHost =
  | { t: "reply"; id: number; ok: true; value?: unknown }
  | { t: "reply"; id: number; ok: false; error: RemoteErrorValue }
  | { t: "event"; name: string; payload?: unknown; attached?: true };

/** The largest JSON frame either side accepts unless told otherwise: 64 MiB. */
export const DEFAULT_MAX_JSON_FRAME_BYTES = 64 * 1024 * 1024;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Checks the shape of a message from the sandbox; anything else breaks the channel. */
export function asRemoteToHost(value: unknown): RemoteToHost | undefined {
  if (!isRecord(value)) return undefined;
  if (value.t === "reply") {
    if (!Number.isSafeInteger(value.id)) return undefined;
    if (value.ok === true) return value as RemoteToHost;
    const error = value.error;
    if (
      value.ok === false &&
      isRecord(error) &&
      typeof error.name === "string" &&
      typeof error.message === "string"
    ) {
      return value as RemoteToHost;
    }
    return undefined;
  }
  if (value.t === "event" && typeof value.name === "string") return value as RemoteToHost;
  return undefined;
}

export function asHostToRemote(value: unknown): HostToRemote | undefined {
  if (!isRecord(value) || typeof value.method !== "string" || !Array.isArray(value.args)) return undefined;
  if (value.t === "call" && Number.isSafeInteger(value.id)) return value as HostToRemote;
  if (value.t === "notify") return value as HostToRemote;
  return undefined;
}
