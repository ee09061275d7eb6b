import type { Socket } from "node:net";

/**
 * What `atrium-vm exec/cp/stop` say to the process serving a named machine (`atrium-vm start`),
 * over the Unix socket in the machine's directory: one JSON request per connection, answered
 * by JSON lines (bytes in base64). The only module both sides share.
 */
export type ControlRequest =
  | {
      op: "exec";
      argv: string[];
      env?: Record<string, string>;
      cwd?: string;
      timeoutMs?: number;
      /** base64 */
      stdin?: string;
    }
  | { op: "write"; path: string; data: string; mode?: number }
  | { op: "read"; path: string }
  | { op: "stop" };

export type ControlReply =
  | { type: "stdout"; data: string }
  | { type: "stderr"; data: string }
  | { type: "exit"; exitCode: number; timedOut: boolean }
  | { type: "data"; data: string }
  | { type: "ok" }
  | { type: "error"; message: string };

export function sendLine(socket: Socket, message: ControlRequest | ControlReply): void {
  socket.write(`${JSON.stringify(message)}\n`);
}

/** Calls `onLine` with each JSON line the socket receives. */
export function onLines(socket: Socket, onLine: (value: unknown) => void): void {
  let buffered = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line) onLine(JSON.parse(line));
      newline = buffered.indexOf("\n");
    }
  });
}
