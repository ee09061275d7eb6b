import { defineCommand } from "@atrium/kit/cli";
import { defaultStateDir } from "../../config/state-dir.js";
import { removeNamedMachine } from "../../named-machine/machine-store.js";

export const rmCommand = defineCommand({
  name: "rm",
  summary: "delete named machines and their disks",
  usage: "NAME...",
  description: "Deletes named machines and their disks. A running machine is refused: stop it first.",
  positionals: { min: 1, max: Number.POSITIVE_INFINITY, names: "the machine's NAME" },
  async run({ positionals }, io) {
    for (const name of positionals) {
      await removeNamedMachine(name, { stateDir: defaultStateDir(io.env) });
      io.stdout.write(`removed ${name}\n`);
    }
    return 0;
  },
});
