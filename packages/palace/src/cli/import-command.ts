import { defineCommand, jsonText } from "@atrium/kit/cli";
import { openExportFile } from "../export/import-lines.js";
import { importPalace } from "../export/import-palace.js";
import { JSON_OPTION, PALACE_OPTION, withPalace } from "./palace-option.js";

export const importCommand = defineCommand({
  name: "import",
  summary: "read an export into the palace",
  usage: "<file.jsonl> [--json]",
  description:
    "Reads an export (atrium-palace export) into the palace, created if missing: drawers keep their\nids, times and pins; vectors are made with this palace's embedding. The whole file is checked\nfirst (an error names the line), so a bad file changes nothing. Drawers already there are skipped.",
  arguments: [["<file.jsonl>", "the file to read"]],
  options: { ...JSON_OPTION, ...PALACE_OPTION },
  positionals: { min: 1, max: 1, names: "the file to read" },
  async run({ values, positionals }, io) {
    const file = positionals[0] as string;
    // Before the palace is opened (and created when missing): a wrong path creates nothing.
    await (await openExportFile(file)).close();
    const report = await withPalace(values, io.env, { create: true }, (palace) => importPalace(palace, file));
    io.stdout.write(
      values.json
        ? jsonText(report)
        : `imported ${report.drawers} drawers (${report.skipped} already there), ${report.sources} sources, ${report.knowledgeGraphRows} knowledge-graph rows from ${file}\n`,
    );
    return 0;
  },
});
