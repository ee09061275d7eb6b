import { resolve } from "node:path";
import { defineCommand } from "@atrium/kit/cli";
import { Machine } from "../../machine/machine.js";
import { progressTo } from "../progress.js";
import { guestCommand, runStreamed, TIMEOUT_OPTION, timeoutOption } from "./run-command.js";

export const restoreCommand = defineCommand({
  name: "restore",
  summary: "resume a snapshot, run one command, stop",
  usage: "[options] FILE -- COMMAND [ARG...]",
  description: `Resumes the machine saved in FILE (\`atrium-vm snapshot\`, or machine.snapshot() in the API)
where it was, with fresh randomness and the same network policy, runs COMMAND in it, prints
its output, stops it and exits with COMMAND's code. FILE is not changed: restore it again for
the same starting point.`,
  options: TIMEOUT_OPTION,
  positionals: { min: 1, max: 1, names: "the snapshot FILE" },
  rest: true,
  async run(args, io) {
    const command = guestCommand(args.rest);
    const timeoutMs = timeoutOption(args.values.timeout);
    const file = resolve(io.cwd, args.positionals[0] as string);
    const machine = await Machine.restore(file, { onProgress: progressTo(io) });
    try {
      return await runStreamed(machine, command, io, timeoutMs);
    } finally {
      await machine.stop();
    }
  },
});
