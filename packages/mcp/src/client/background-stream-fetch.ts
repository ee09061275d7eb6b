import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * A `fetch` for the streamable-HTTP transport whose GET requests do not hold the host's event
 * loop open. The SDK opens one GET as a standing event stream for server-sent notifications and
 * keeps it for the whole session; through the global `fetch` that socket keeps a script that
 * forgot `close()` alive forever. Every response to a call comes on the call's own POST (sent
 * through the global `fetch`, which holds the loop until it answers), so the GET stream is
 * background: it is made with `node:http` on its own connection, whose socket is unref'd.
 * The legacy SSE transport must not use this: its GET stream carries the responses.
 */
export function backgroundStreamFetch(): FetchLike {
  return (url, init) => {
    if ((init?.method ?? "GET").toUpperCase() !== "GET") return fetch(url, init);
    return unrefGet(new URL(url), init);
  };
}

function unrefGet(url: URL, init: RequestInit | undefined): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = request(url, {
      method: "GET",
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
      signal: init?.signal ?? undefined,
      // A connection of its own: an unref'd socket must not go back to a pool other requests use.
      agent: false,
    });
    req.once("socket", (socket) => socket.unref());
    req.once("error", reject);
    req.once("response", (res) => {
      const status = res.statusCode ?? 0;
      const body = NULL_BODY_STATUSES.has(status)
        ? null
        : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
      if (!body) res.resume();
      resolve(new Response(body, { status, statusText: res.statusMessage, headers: headersOf(res.headers) }));
    });
    req.end();
  });
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value]) headers.append(name, each);
  }
  return headers;
}
