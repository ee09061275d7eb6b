import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

type Delivery = [JSONRPCMessage, MessageExtraInfo | undefined];

function isProgress(message: JSONRPCMessage): boolean {
  return "method" in message && message.method === "notifications/progress" && !("id" in message);
}

/**
 * Works around an ordering gap in the SDK's Protocol: it runs notification handlers a microtask
 * late but settles responses at once, so when a server's last progress notification and its
 * result arrive in one chunk, the result removes the progress handler first and that progress
 * is lost. This wrapper lets a progress notification's handler run (one macrotask) before
 * delivering anything that comes after it, even in the same synchronous read loop.
 */
export class ProgressOrderedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

  private readonly queue: Delivery[] = [];
  private waiting = false;
  private closedWhileWaiting = false;

  constructor(readonly inner: Transport) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => {
      this.queue.push([message, extra]);
      if (!this.waiting) this.flush();
    };
    this.inner.onerror = (error) => this.onerror?.(error);
    // A server may answer and exit at once: deliver what it said before reporting the close.
    this.inner.onclose = () => {
      if (this.waiting) this.closedWhileWaiting = true;
      else this.onclose?.();
    };
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private flush(): void {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      this.onmessage?.(next[0], next[1]);
      if (isProgress(next[0])) {
        this.waiting = true;
        setImmediate(() => {
          this.waiting = false;
          this.flush();
        });
        return;
      }
    }
    if (this.closedWhileWaiting) {
      this.closedWhileWaiting = false;
      this.onclose?.();
    }
  }
}
