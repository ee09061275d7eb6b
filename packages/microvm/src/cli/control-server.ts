import { createServer, type Server, type Socket } from "node:net";
import { errorMessage } from "@atrium/spec";
import { DEFAULT_MICROVM_LIMITS } from "../limits.js";
import type { Machine } from "../machine/machine.js";
import {
  type ControlReply,
  type ControlRequest,
  onLines,
  parseControlRequest,
  sendLine,
} from "./control-protocol.js";

/**
 * Serves a running machine on a Unix socket for other `atrium-vm` processes. `onStop` runs when
 * a client asks the machine to stop (after the reply is sent). Nothing a client sends can end
 * the serving process: a bad line is answered with an error and the connection closed.
 */
export async function serveMachine(
  machine: Machine,
  socketPath: string,
  onStop: () => void,
  options: { maxLineBytes?: number } = {},
): Promise<Server> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MICROVM_LIMITS.maxControlLineBytes;
  const server = createServer((socket) => {
    socket.on("error", () => {}); // a client that went away; nothing to answer
    let handled = false;
    const fail = (error: unknown) => {
      sendLine(socket, { type: "error", message: errorMessage(error) });
      socket.end();
    };
    onLines(
      socket,
      (value) => {
        if (handled) return;
        handled = true;
        try {
          serve(machine, socket, parseControlRequest(value), onStop, fail);
        } catch (error) {
          fail(error);
        }
      },
      { maxLineBytes, onBadLine: fail },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  return server;
}

function serve(
  machine: Machine,
  socket: Socket,
  request: ControlRequest,
  onStop: () => void,
  fail: (error: unknown) => void,
): void {
  // A client that is stopped (or slow) holds the guest back instead of growing our memory:
  // a full socket makes the output callback return a promise, which holds the agent channel.
  const reply = (message: ControlReply): Promise<void> | undefined => {
    if (socket.destroyed || sendLine(socket, message)) return undefined;
    return new Promise<void>((resolve) => {
      const settle = () => {
        socket.off("drain", settle);
        socket.off("close", settle);
        resolve();
      };
      socket.once("drain", settle);
      socket.once("close", settle);
    });
  };
  if (request.op === "exec") {
    // A client that goes away (killed, its reader closed) takes its command with it.
    const abort = new AbortController();
    const onClose = () => abort.abort();
    socket.once("close", onClose);
    machine
      .exec(request.argv, {
        ...(request.env ? { env: request.env } : {}),
        ...(request.cwd ? { cwd: request.cwd } : {}),
        ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}),
        ...(request.stdin !== undefined ? { stdin: Buffer.from(request.stdin, "base64") } : {}),
        signal: abort.signal,
        keepOutput: false,
        onStdout: (chunk) => reply({ type: "stdout", data: Buffer.from(chunk).toString("base64") }),
        onStderr: (chunk) => reply({ type: "stderr", data: Buffer.from(chunk).toString("base64") }),
      })
      .then((result) => {
        reply({ type: "exit", exitCode: result.exitCode, timedOut: result.timedOut });
        socket.end();
      }, fail)
      .finally(() => socket.off("close", onClose));
  } else if (request.op === "write") {
    machine.writeFile(request.path, Buffer.from(request.data, "base64"), { mode: request.mode }).then(() => {
      reply({ type: "ok" });
      socket.end();
    }, fail);
  } else if (request.op === "read") {
    machine.readFile(request.path).then((data) => {
      reply({ type: "data", data: Buffer.from(data).toString("base64") });
      socket.end();
    }, fail);
  } else if (request.op === "snapshot") {
    machine.snapshot(request.path).then((info) => {
      reply({
        type: "snapshot",
        stateBytes: info.stateBytes,
        diskBytes: info.diskBytes,
        pausedMs: info.pausedMs,
      });
      socket.end();
    }, fail);
  } else {
    reply({ type: "ok" });
    socket.end();
    onStop();
  }
}
