import { exportPalace } from "../export/export-palace.js";
import { type CliCommand, parseCommandArgs, printHelp } from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace export <file.jsonl>

Writes the whole palace to one JSONL file: drawers (with ids, times, pins, access counts),
mined sources and the knowledge graph, one JSON object per line. \`atrium-palace import\` reads
it back into another palace, losslessly.

${PALACE_OPTION_HELP}
  -h, --help            show this help
`;

export const exportCommand: CliCommand = {
  name: "export",
  synopsis: "export <file.jsonl>",
  summary: "the whole palace as JSONL",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(argv, PALACE_OPTION, { min: 1, max: 1, names: "the file to write" });
    if (!args) return printHelp(io, USAGE);
    const file = args.positionals[0] as string;
    const report = await withPalace(args.values, io.env, {}, (palace) => exportPalace(palace, file));
    io.stdout.write(
      `exported ${report.drawers} drawers, ${report.sources} sources, ${report.knowledgeGraphRows} knowledge-graph rows to ${file}\n`,
    );
    return 0;
  },
};
