import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * A `fetch` for the SDK's HTTP transports that refuses to buffer a server's message past
 * `maxBytes`: a plain JSON body counts in full, an SSE stream counts each event (up to its
 * blank line), so a long-lived stream of small events is fine. Past the limit the body errors
 * and `onOverflow` runs; the SDK would otherwise hold all of it in memory.
 */
export function boundedFetch(
  maxBytes: number,
  onOverflow: (error: Error) => void,
  baseFetch: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    const response = await baseFetch(url, init);
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
    const meter = new MessageMeter(
      (response.headers.get("content-type") ?? "").includes("text/event-stream"),
    );
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (meter.add(chunk) > maxBytes) {
          const error = new Error(`sent a message over ${maxBytes} bytes`);
          controller.error(error);
          onOverflow(error);
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Statuses a constructed Response may not carry a body with. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);
const LF = 0x0a;
const CR = 0x0d;

/** Sizes of the messages in a body as it streams in. */
export class MessageMeter {
  private open = 0;
  /** The two bytes before the current chunk, for a blank line split across chunks. */
  private before: [number, number] = [0, 0];

  constructor(private readonly eventStream: boolean) {}

  /** The largest message this chunk completes or extends, in bytes. */
  add(chunk: Uint8Array): number {
    if (!this.eventStream) {
      this.open += chunk.length;
      return this.open;
    }
    let largest = 0;
    let start = 0;
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, i + 1)) {
      const previous = i >= 1 ? chunk[i - 1] : this.before[1];
      const beforePrevious = i >= 2 ? chunk[i - 2] : i === 1 ? this.before[1] : this.before[0];
      // An event ends at a blank line: "\n\n" or "\r\n\r\n".
      if (previous !== LF && !(previous === CR && beforePrevious === LF)) continue;
      largest = Math.max(largest, this.open + i + 1 - start);
      this.open = 0;
      start = i + 1;
    }
    this.open += chunk.length - start;
    const length = chunk.length;
    if (length >= 2) this.before = [chunk[length - 2]!, chunk[length - 1]!];
    else if (length === 1) this.before = [this.before[1], chunk[0]!];
    return Math.max(largest, this.open);
  }
}
