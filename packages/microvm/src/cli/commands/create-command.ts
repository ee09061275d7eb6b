import { defineCommand } from "@atrium/kit/cli";
import { defaultCacheDir } from "../../cache-dir.js";
import { defaultStateDir } from "../../config/state-dir.js";
import { createNamedMachine } from "../../named-machine/machine-store.js";
import { MACHINE_SOURCE_OPTIONS, machineConfig } from "../machine-source.js";
import { progressTo } from "../progress.js";

export const createCommand = defineCommand({
  name: "create",
  summary: "create a named machine with its own disk",
  usage: "[options] NAME",
  description:
    "Creates a named machine: its image is built (cached) and the machine gets its own disk under\nthe state directory ($ATRIUM_VM_STATE, else $XDG_STATE_HOME/atrium/microvm). Nothing boots;\n`atrium-vm start NAME` does. Every boot writes the same disk, so files stay between boots.",
  options: MACHINE_SOURCE_OPTIONS,
  positionals: { min: 1, max: 1, names: "the machine's NAME" },
  async run({ values, positionals }, io) {
    const name = positionals[0] as string;
    const config = await machineConfig(values, io);
    await createNamedMachine(name, config, {
      stateDir: defaultStateDir(io.env),
      cacheDir: defaultCacheDir(io.env),
      onProgress: progressTo(io),
    });
    io.stdout.write(`created ${name}\n`);
    return 0;
  },
});
