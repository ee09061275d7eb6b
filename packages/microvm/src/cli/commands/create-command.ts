import { defaultCacheDir } from "../../cache-dir.js";
import { defaultStateDir } from "../../config/state-dir.js";
import { createNamedMachine } from "../../named-machine/machine-store.js";
import { type CliCommand, parseCommandArgs } from "../cli-command.js";
import { MACHINE_SOURCE_OPTIONS, MACHINE_SOURCE_USAGE, machineConfig } from "../machine-source.js";
import { progressTo } from "../progress.js";

const USAGE = `Usage: atrium-vm create [options] NAME

Creates a named machine: its image is built (cached) and the machine gets its own disk under
the state directory ($ATRIUM_VM_STATE, else $XDG_STATE_HOME/atrium/microvm). Nothing boots;
\`atrium-vm start NAME\` does. Every boot writes the same disk, so files stay between boots.

Options:
${MACHINE_SOURCE_USAGE}
  -h, --help          show this help
`;

export const createCommand: CliCommand = {
  name: "create",
  summary: "create a named machine with its own disk",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(argv, MACHINE_SOURCE_OPTIONS, {
      min: 1,
      max: 1,
      what: "the machine's NAME",
    });
    if (!args) {
      io.stdout.write(USAGE);
      return 0;
    }
    const name = args.positionals[0] as string;
    const config = await machineConfig(args.values, io);
    await createNamedMachine(name, config, {
      stateDir: defaultStateDir(io.env),
      cacheDir: defaultCacheDir(io.env),
      onProgress: progressTo(io),
    });
    io.stdout.write(`created ${name}\n`);
    return 0;
  },
};
