import { resolve } from "node:path";
import { defineCommand } from "@atrium/kit/cli";
import { defaultStateDir } from "../../config/state-dir.js";
import { snapshotServedMachine } from "../control-client.js";

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export const snapshotCommand = defineCommand({
  name: "snapshot",
  summary: "save a running named machine to a file",
  usage: "NAME FILE",
  description: `Saves the running named machine NAME (see \`atrium-vm start\`) to FILE: its memory, devices
and disk. The guest is paused while QEMU writes it and runs on afterwards. \`atrium-vm restore
FILE\` resumes it where it was, \`atrium-vm fork\` clones it. Refused for a machine with volumes
(QEMU does not migrate a mounted 9p export).`,
  positionals: { min: 2, max: 2, names: "the machine's NAME and the FILE to write" },
  async run(args, io) {
    const [name, file] = args.positionals as [string, string];
    const path = resolve(io.cwd, file);
    const saved = await snapshotServedMachine(name, path, { stateDir: defaultStateDir(io.env) });
    io.stdout.write(
      `saved ${name} to ${path} (${mib(saved.stateBytes)} MiB of state, ${mib(saved.diskBytes)} MiB of disk; paused ${Math.round(saved.pausedMs)} ms)\n`,
    );
    return 0;
  },
});
