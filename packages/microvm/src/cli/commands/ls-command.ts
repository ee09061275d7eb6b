import { defaultStateDir } from "../../config/state-dir.js";
import { listNamedMachines } from "../../named-machine/machine-store.js";
import { type CliCommand, parseCommandArgs } from "../cli-command.js";

const USAGE = `Usage: atrium-vm ls

Lists the named machines: name, status (running with the serving pid, or stopped), image.

Options:
  -h, --help   show this help
`;

export const lsCommand: CliCommand = {
  name: "ls",
  summary: "list named machines",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {}, { min: 0, max: 0, what: "" });
    if (!args) {
      io.stdout.write(USAGE);
      return 0;
    }
    const machines = await listNamedMachines({ stateDir: defaultStateDir(io.env) });
    const rows = [
      ["NAME", "STATUS", "IMAGE"],
      ...machines.map((m) => [m.name, m.pid ? `running (pid ${m.pid})` : "stopped", m.image]),
    ];
    const widths = [0, 1].map((column) => Math.max(...rows.map((row) => (row[column] as string).length)));
    for (const row of rows) {
      io.stdout.write(
        `${row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] as number) : cell)).join("  ")}\n`,
      );
    }
    return 0;
  },
};
