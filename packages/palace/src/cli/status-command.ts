import { type CliCommand, jsonLine, parseCommandArgs, printHelp } from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace status [--json]

What the palace holds: drawers, wings, rooms, mined sources, pinned drawers, facts, and whether
the vector index is in sync with the registry (run repair if it stays behind).

  --json                print it as JSON
${PALACE_OPTION_HELP}
  -h, --help            show this help
`;

export const statusCommand: CliCommand = {
  name: "status",
  synopsis: "status [--json]",
  summary: "what the palace holds",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      { ...PALACE_OPTION, json: { type: "boolean" } },
      { min: 0, max: 0, names: "" },
    );
    if (!args) return printHelp(io, USAGE);
    const { status, kg } = await withPalace(args.values, io.env, {}, async (palace) => ({
      status: await palace.status(),
      kg: palace.kg.stats(),
    }));
    if (args.values.json) {
      io.stdout.write(jsonLine({ ...status, knowledgeGraph: kg }));
      return 0;
    }
    const lines = [
      `palace     ${status.name} (${status.dir})`,
      `embedding  ${status.embedding}`,
      `drawers    ${status.drawers} in ${status.wings} wings, ${status.rooms} rooms (${status.pinned} pinned)`,
      `sources    ${status.sources} mined`,
      `facts      ${kg.triples} (${kg.openTriples} open) about ${kg.entities} entities`,
      `vectors    ${status.pendingVectors === 0 ? "in sync" : `${status.pendingVectors} writes pending (run atrium-palace repair if this stays)`}`,
    ];
    io.stdout.write(`${lines.join("\n")}\n`);
    return 0;
  },
};
