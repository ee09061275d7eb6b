import { defineCommand, jsonText } from "@atrium/kit/cli";
import { defaultStateDir } from "../../config/state-dir.js";
import { listNamedMachines } from "../../named-machine/machine-store.js";

export const lsCommand = defineCommand({
  name: "ls",
  summary: "list named machines",
  usage: "[--json]",
  description: "Lists the named machines: name, status (running with the serving pid, or stopped), image.",
  options: { json: { type: "boolean", help: "print them as JSON" } },
  async run({ values }, io) {
    const machines = await listNamedMachines({ stateDir: defaultStateDir(io.env) });
    if (values.json) {
      io.stdout.write(jsonText(machines));
      return 0;
    }
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
});
