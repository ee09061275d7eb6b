import { createServer, type Server } from "node:net";
import { errorMessage } from "@atrium/spec";
import type { Machine } from "../machine/machine.js";
import { type ControlReply, type ControlRequest, onLines, sendLine } from "./control-protocol.js";

/**
 * Serves a running machine on a Unix socket for other `atrium-vm` processes. `onStop` runs when
 * a client asks the machine to stop (after the reply is sent).
 */
export async function serveMachine(
  machine: Machine,
  socketPath: string,
  onStop: () => void,
): Promise<Server> {
  const server = createServer((socket) => {
    socket.on("error", () => {}); // a client that went away; nothing to answer
    let handled = false;
    onLines(socket, (value) => {
      if (handled) return;
      handled = true;
      const request = value as ControlRequest;
      const reply = (message: ControlReply) => sendLine(socket, message);
      const fail = (error: unknown) => {
        reply({ type: "error", message: errorMessage(error) });
        socket.end();
      };
      if (request.op === "exec") {
        machine
          .exec(request.argv, {
            ...(request.env ? { env: request.env } : {}),
            ...(request.cwd ? { cwd: request.cwd } : {}),
            ...(request.timeoutMs ? { timeoutMs: request.timeoutMs } : {}),
            ...(request.stdin !== undefined ? { stdin: Buffer.from(request.stdin, "base64") } : {}),
            onStdout: (chunk) => reply({ type: "stdout", data: Buffer.from(chunk).toString("base64") }),
            onStderr: (chunk) => reply({ type: "stderr", data: Buffer.from(chunk).toString("base64") }),
          })
          .then((result) => {
            reply({ type: "exit", exitCode: result.exitCode, timedOut: result.timedOut });
            socket.end();
          }, fail);
      } else if (request.op === "write") {
        machine
          .writeFile(request.path, Buffer.from(request.data, "base64"), { mode: request.mode })
          .then(() => {
            reply({ type: "ok" });
            socket.end();
          }, fail);
      } else if (request.op === "read") {
        machine.readFile(request.path).then((data) => {
          reply({ type: "data", data: Buffer.from(data).toString("base64") });
          socket.end();
        }, fail);
      } else if (request.op === "stop") {
        reply({ type: "ok" });
        socket.end();
        onStop();
      } else {
        fail(new Error(`unknown request ${JSON.stringify((request as { op?: unknown }).op)}`));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  return server;
}
