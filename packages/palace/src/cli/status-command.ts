import { type CliCommand, jsonLine, parseCommandArgs, printHelp, UsageError } from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace status [DIR] [--json]

What the palace holds: drawers, wings, rooms, mined sources, pinned drawers, facts, and whether
the vector index is in sync with the registry (run repair if it stays behind).

  DIR                   the palace (same as --palace DIR)
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
      { min: 0, max: 1, names: "DIR" },
    );
    if (!args) return printHelp(io, USAGE);
    const [dir] = args.positionals;
    if (dir !== undefined && args.values.palace !== undefined) {
      throw new UsageError("give the palace as DIR or as --palace DIR, not both");
    }
    const values = dir === undefined ? args.values : { ...args.values, palace: dir };
    const { status, kg } = await withPalace(values, io.env, {}, async (palace) => ({
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
