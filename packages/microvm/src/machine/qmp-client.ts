import type { Socket } from "node:net";
import { connectQemuSocket } from "./qemu-socket.js";

/** QMP said no: the command's `error.desc`, with the command it answered. */
export class QmpCommandError extends Error {
  constructor(
    readonly command: string,
    readonly desc: string,
  ) {
    super(`QEMU refused ${command}: ${desc}`);
  }
}

/** Longest QMP line kept (query-migrate and query-status answers are far below it). */
const MAX_LINE_BYTES = 1024 * 1024;

/**
 * QEMU's machine protocol over the Unix socket of `-qmp unix:PATH,server=on,wait=off`: one
 * command at a time, each with a deadline. The machine uses it only around snapshots (stop,
 * migrate, cont, migrate-incoming), never on an exec's path.
 */
export class QmpClient {
  private buffer = "";
  private waiting:
    | { what: string; resolve: (value: unknown) => void; reject: (error: Error) => void }
    | undefined;
  private closedWith: Error | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => this.receive(chunk));
    const closed = (error: Error) => {
      this.closedWith ??= error;
      this.waiting?.reject(this.closedWith);
      this.waiting = undefined;
    };
    socket.on("error", closed);
    socket.on("close", () => closed(new Error("QEMU closed its QMP socket (it exited)")));
  }

  /** Connects (the socket appears shortly after QEMU starts) and leaves capabilities negotiation. */
  static connect(path: string, isAlive: () => boolean, timeoutMs: number): Promise<QmpClient> {
    return connectQemuSocket(path, isAlive, timeoutMs, async (socket) => {
      const client = new QmpClient(socket);
      // The greeting comes first, unasked; then capabilities must be negotiated.
      await client.nextReply(timeoutMs, "the QMP greeting");
      await client.execute("qmp_capabilities", {}, timeoutMs);
      return client;
    });
  }

  /** Runs one command; resolves with its `return`, rejects with QmpCommandError or a timeout. */
  execute(command: string, args: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const run = this.queue.then(() => {
      const reply = this.nextReply(timeoutMs, command);
      this.socket.write(`${JSON.stringify({ execute: command, arguments: args })}\n`);
      return reply;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  close(): void {
    this.socket.destroy();
  }

  private nextReply(timeoutMs: number, what: string): Promise<unknown> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error(`QEMU did not answer ${what} on QMP within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting = {
        what,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    if (this.buffer.length > MAX_LINE_BYTES && !this.buffer.includes("\n")) {
      this.socket.destroy(new Error(`a QMP line is longer than ${MAX_LINE_BYTES} bytes`));
      return;
    }
    let newline = this.buffer.indexOf("\n");
    while (newline >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf("\n");
      if (!line) continue;
      const message = JSON.parse(line) as {
        QMP?: unknown;
        return?: unknown;
        error?: { desc: string };
        event?: string;
      };
      // Events (STOP, RESUME, MIGRATION) arrive between answers; the state is polled instead.
      if (message.event) continue;
      const waiting = this.waiting;
      this.waiting = undefined;
      if (!waiting) continue;
      if (message.error) waiting.reject(new QmpCommandError(waiting.what, message.error.desc));
      else waiting.resolve(message.QMP ?? message.return);
    }
  }
}
