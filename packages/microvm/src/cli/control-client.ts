import { connect, type Socket } from "node:net";
import { ConfigError } from "@atrium/spec";
import { DEFAULT_MICROVM_LIMITS } from "../limits.js";
import {
  machinePaths,
  readNamedMachine,
  type StoreOptions,
  servingPid,
} from "../named-machine/machine-store.js";
import { type ControlReply, type ControlRequest, onLines, sendLine } from "./control-protocol.js";

/**
 * Sends one request to the process serving a named machine and hands each reply line to
 * `onReply`; resolves when the server closes the connection. A machine nobody serves is an
 * error that says how to start it.
 */
export async function requestMachine(
  name: string,
  request: ControlRequest,
  onReply: (reply: ControlReply) => unknown,
  options: StoreOptions & { maxLineBytes?: number; onSocket?: (socket: Socket) => void } = {},
): Promise<void> {
  await readNamedMachine(name, options);
  if (!(await servingPid(name, options))) {
    throw new ConfigError(
      `machine ${name} is not running; start it in another terminal with: atrium-vm start ${name}`,
    );
  }
  const socket = connect(machinePaths(name, options).socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => {
      sendLine(socket, request);
    });
    options.onSocket?.(socket);
    // A reply returning a promise (our stdout is full) pauses the socket: the server, and the
    // guest behind it, wait for our reader.
    onLines(socket, (value) => onReply(value as ControlReply), {
      maxLineBytes: options.maxLineBytes ?? DEFAULT_MICROVM_LIMITS.maxControlLineBytes,
      onBadLine: (error) => {
        socket.destroy();
        reject(
          new ConfigError(
            `machine ${name} answered with ${error.message.replace(/^a control line/, "a line that")}`,
          ),
        );
      },
    });
    socket.once("error", (error) =>
      reject(
        new ConfigError(
          `cannot reach machine ${name} (${error.message}); is \`atrium-vm start ${name}\` still running?`,
        ),
      ),
    );
    socket.once("close", () => resolve());
  });
}

/** Has the process serving `name` snapshot it to `path` (absolute, on that host); resolves with what it wrote. */
export async function snapshotServedMachine(
  name: string,
  path: string,
  options: StoreOptions,
): Promise<{ stateBytes: number; diskBytes: number; pausedMs: number }> {
  let saved: { stateBytes: number; diskBytes: number; pausedMs: number } | undefined;
  let failure: string | undefined;
  await requestMachine(
    name,
    { op: "snapshot", path },
    (reply) => {
      if (reply.type === "snapshot") saved = reply;
      else if (reply.type === "error") failure = reply.message;
    },
    options,
  );
  if (failure !== undefined || !saved) throw new Error(failure ?? `machine ${name} closed without an answer`);
  return saved;
}
