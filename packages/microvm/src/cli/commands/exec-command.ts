import type { Socket } from "node:net";
import { defineCommand } from "@atrium/kit/cli";
import { defaultStateDir } from "../../config/state-dir.js";
import { requestMachine } from "../control-client.js";
import { brokenStreamMessage, OutputSink } from "../output-sink.js";
import { guestCommand, TIMEOUT_OPTION, timeoutOption } from "./run-command.js";

export const execCommand = defineCommand({
  name: "exec",
  summary: "run a command in a running named machine",
  usage: "[options] NAME -- COMMAND [ARG...]",
  description:
    "Runs COMMAND in the running named machine NAME (see `atrium-vm start`), streams its output\nand exits with its exit code. One argument with spaces runs through /bin/sh -c.",
  options: TIMEOUT_OPTION,
  positionals: { min: 1, max: 1, names: "the machine's NAME" },
  rest: true,
  async run(args, io) {
    const command = guestCommand(args.rest);
    const timeoutMs = timeoutOption(args.values.timeout);
    let exitCode = 1;
    let failure: string | undefined;
    let broken: string | undefined;
    let socket: Socket | undefined;
    // Our reader sets the pace: a full stdout pauses the socket, which holds back the serving
    // process and the guest. A reader that goes away ends the connection, and the server kills
    // the command.
    const onBroken = (name: string) => (error: Error) => {
      broken ??= brokenStreamMessage(name, error);
      socket?.destroy();
    };
    const stdout = new OutputSink(io.stdout, onBroken("stdout"));
    const stderr = new OutputSink(io.stderr, onBroken("stderr"));
    try {
      await requestMachine(
        args.positionals[0] as string,
        {
          op: "exec",
          argv: typeof command === "string" ? ["/bin/sh", "-c", command] : command,
          ...(timeoutMs ? { timeoutMs } : {}),
        },
        (reply) => {
          if (reply.type === "stdout") return stdout.write(Buffer.from(reply.data, "base64"));
          if (reply.type === "stderr") return stderr.write(Buffer.from(reply.data, "base64"));
          if (reply.type === "exit") exitCode = reply.exitCode;
          else if (reply.type === "error") failure = reply.message;
          return undefined;
        },
        { stateDir: defaultStateDir(io.env), onSocket: (s) => (socket = s) },
      );
    } finally {
      stdout.close();
      stderr.close();
    }
    if (broken !== undefined) throw new Error(`${broken}; the command was killed`);
    if (failure !== undefined) throw new Error(failure);
    return exitCode;
  },
});
