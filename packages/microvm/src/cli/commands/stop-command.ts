import { setTimeout as sleep } from "node:timers/promises";
import { defineCommand } from "@atrium/kit/cli";
import { defaultStateDir } from "../../config/state-dir.js";
import { servingPid } from "../../named-machine/machine-store.js";
import { requestMachine } from "../control-client.js";

/** How long `stop` waits for the serving process to finish (a clean power-off is quick). */
const STOP_WAIT_MS = 30_000;

export const stopCommand = defineCommand({
  name: "stop",
  summary: "power off a running named machine",
  usage: "NAME",
  description:
    "Asks the process serving NAME (`atrium-vm start NAME`) to power the guest off, and waits\nuntil it has: the disk then holds everything the guest wrote.",
  positionals: { min: 1, max: 1, names: "the machine's NAME" },
  async run(args, io) {
    const name = args.positionals[0] as string;
    const store = { stateDir: defaultStateDir(io.env) };
    await requestMachine(name, { op: "stop" }, () => {}, store);
    const end = Date.now() + STOP_WAIT_MS;
    while ((await servingPid(name, store)) && Date.now() < end) await sleep(50);
    if (await servingPid(name, store)) {
      io.stderr.write(`atrium-vm: ${name} did not stop within ${STOP_WAIT_MS} ms\n`);
      return 1;
    }
    io.stdout.write(`stopped ${name}\n`);
    return 0;
  },
});
