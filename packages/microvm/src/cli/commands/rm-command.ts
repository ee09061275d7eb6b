import { defaultStateDir } from "../../config/state-dir.js";
import { removeNamedMachine } from "../../named-machine/machine-store.js";
import { type CliCommand, parseCommandArgs } from "../cli-command.js";

const USAGE = `Usage: atrium-vm rm NAME...

Deletes named machines and their disks. A running machine is refused: stop it first.

Options:
  -h, --help   show this help
`;

export const rmCommand: CliCommand = {
  name: "rm",
  summary: "delete named machines and their disks",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      {},
      { min: 1, max: Number.POSITIVE_INFINITY, what: "the machine's NAME" },
    );
    if (!args) {
      io.stdout.write(USAGE);
      return 0;
    }
    for (const name of args.positionals) {
      await removeNamedMachine(name, { stateDir: defaultStateDir(io.env) });
      io.stdout.write(`removed ${name}\n`);
    }
    return 0;
  },
};
