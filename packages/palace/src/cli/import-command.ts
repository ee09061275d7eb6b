import { openExportFile } from "../export/import-lines.js";
import { importPalace } from "../export/import-palace.js";
import { type CliCommand, parseCommandArgs, printHelp } from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace import <file.jsonl>

Reads an export (atrium-palace export) into the palace, created if missing: drawers keep their
ids, times and pins; vectors are made with this palace's embedding. The whole file is checked
first (an error names the line), so a bad file changes nothing. Drawers already there are skipped.

${PALACE_OPTION_HELP}
  -h, --help            show this help
`;

export const importCommand: CliCommand = {
  name: "import",
  synopsis: "import <file.jsonl>",
  summary: "read an export into the palace",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(argv, PALACE_OPTION, { min: 1, max: 1, names: "the file to read" });
    if (!args) return printHelp(io, USAGE);
    const file = args.positionals[0] as string;
    // Before the palace is opened (and created when missing): a wrong path creates nothing.
    await (await openExportFile(file)).close();
    const report = await withPalace(args.values, io.env, { create: true }, (palace) =>
      importPalace(palace, file),
    );
    io.stdout.write(
      `imported ${report.drawers} drawers (${report.skipped} already there), ${report.sources} sources, ${report.knowledgeGraphRows} knowledge-graph rows from ${file}\n`,
    );
    return 0;
  },
};
