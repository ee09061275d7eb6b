import { setTimeout as sleep } from "node:timers/promises";
import { defaultStateDir } from "../../config/state-dir.js";
import { servingPid } from "../../named-machine/machine-store.js";
import { type CliCommand, parseCommandArgs } from "../cli-command.js";
import { requestMachine } from "../control-client.js";

const USAGE = `Usage: atrium-vm stop NAME

Asks the process serving NAME (\`atrium-vm start NAME\`) to power the guest off, and waits
until it has: the disk then holds everything the guest wrote.

Options:
  -h, --help   show this help
`;

/** How long `stop` waits for the serving process to finish (a clean power-off is quick). */
const STOP_WAIT_MS = 30_000;

export const stopCommand: CliCommand = {
  name: "stop",
  summary: "power off a running named machine",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {}, { min: 1, max: 1, what: "the machine's NAME" });
    if (!args) {
      io.stdout.write(USAGE);
      return 0;
    }
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
};
