import type { ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ErrorCode, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";

interface InFlight {
  transport: StreamableHTTPServerTransport;
  ids: readonly RequestId[];
}

/**
 * The JSON-RPC requests of one HTTP server whose replies are not yet sent, by the HTTP response
 * that will carry them. Two things the SDK's transport does not do are done here:
 * - a client whose connection closes before its reply has abandoned the call, so the call is
 *   cancelled (its tool sees `ctx.signal` abort) instead of running on for nobody;
 * - at shutdown, calls still running after the grace period are answered with an error rather
 *   than cut off without a reply.
 */
export class InFlightRequests {
  readonly #open = new Map<ServerResponse, InFlight>();
  readonly #drained = new Set<() => void>();

  get size(): number {
    return this.#open.size;
  }

  /** Tracks the requests in `body` (a message or a batch) until `res` ends. */
  track(transport: StreamableHTTPServerTransport, body: unknown, res: ServerResponse): void {
    const ids = requestIds(body);
    if (ids.length === 0) return;
    this.#open.set(res, { transport, ids });
    res.once("close", () => {
      this.#open.delete(res);
      // Closed before everything was written: the client went away (or cancelled its fetch).
      if (!res.writableFinished) for (const id of ids) cancel(transport, id, "the client disconnected");
      if (this.#open.size === 0) for (const resolve of this.#drained) resolve();
    });
  }

  /** Resolves true once nothing is in flight, or false after `timeoutMs`. */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.#open.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.#drained.delete(onDrained);
        resolve(value);
      };
      const onDrained = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#drained.add(onDrained);
    });
  }

  /** Answers every request still in flight with a JSON-RPC error carrying `message`. */
  async failAll(message: string): Promise<void> {
    const sends: Promise<void>[] = [];
    for (const { transport, ids } of this.#open.values()) {
      for (const id of ids) {
        const reply: JSONRPCMessage = {
          jsonrpc: "2.0",
          id,
          error: { code: ErrorCode.ConnectionClosed, message },
        };
        // A request answered a moment ago has no stream left to write to: nothing to do.
        sends.push(transport.send(reply, { relatedRequestId: id }).catch(() => {}));
      }
    }
    await Promise.all(sends);
  }
}

function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) =>
    typeof message === "object" &&
    message !== null &&
    "method" in message &&
    "id" in message &&
    (typeof message.id === "string" || typeof message.id === "number")
      ? [message.id]
      : [],
  );
}

/**
 * The SDK aborts a request handler only on `notifications/cancelled` or when the whole session
 * closes; there is no per-request abort. A disconnect is the client cancelling, so it is
 * delivered as the cancellation the client could no longer send.
 */
function cancel(transport: StreamableHTTPServerTransport, requestId: RequestId, reason: string): void {
  transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason } });
}
