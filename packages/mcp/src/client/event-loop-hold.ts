import type { ChildProcess } from "node:child_process";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

type Handle = { ref?: () => unknown; unref?: () => unknown };

/**
 * Keeps a stdio server's process and pipes from holding the host's event loop open while no
 * request is waiting for an answer, so a script that forgets `close()` still exits once its work
 * is done (the exit hook in child-processes.ts then kills the server). While a request is in
 * flight they are ref'd: an `await client.callTool(...)` must keep the host alive until it
 * answers. A request ends with its response, or with the `notifications/cancelled` the SDK sends
 * when it gives up (timeout, abort), after which no response is awaited any more.
 */
export class EventLoopHold {
  readonly #pending = new Set<string | number>();
  #held = true;
  #pinned = false;

  constructor(private readonly child: ChildProcess) {
    this.#update();
  }

  /** Sees a message this side sends. */
  sent(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message) this.#pending.add(message.id);
    else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) this.#pending.delete(id);
    }
    this.#update();
  }

  /** Sees a message the server sends. */
  received(message: JSONRPCMessage): void {
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      this.#pending.delete(message.id);
      this.#update();
    }
  }

  /** Holds the loop from now on whatever is in flight: `close()` awaits the exit. */
  pin(): void {
    this.#pinned = true;
    this.#update();
  }

  #update(): void {
    const hold = this.#pinned || this.#pending.size > 0;
    if (hold === this.#held) return;
    this.#held = hold;
    const { child } = this;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as (Handle | null)[]) {
      // Child pipes are net.Sockets; a stream without ref/unref (never here) is left alone.
      if (hold) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}
