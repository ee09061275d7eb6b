import { defineCommand, jsonText } from "@atrium/kit/cli";
import { exportPalace } from "../export/export-palace.js";
import { JSON_OPTION, PALACE_OPTION, withPalace } from "./palace-option.js";

export const exportCommand = defineCommand({
  name: "export",
  summary: "the whole palace as JSONL",
  usage: "<file.jsonl> [--json]",
  description:
    "Writes the whole palace to one JSONL file: drawers (with ids, times, pins, access counts),\nmined sources and the knowledge graph, one JSON object per line. `atrium-palace import` reads\nit back into another palace, losslessly.",
  arguments: [["<file.jsonl>", "the file to write"]],
  options: { ...JSON_OPTION, ...PALACE_OPTION },
  positionals: { min: 1, max: 1, names: "the file to write" },
  async run({ values, positionals }, io) {
    const file = positionals[0] as string;
    const report = await withPalace(values, io.env, {}, (palace) => exportPalace(palace, file));
    io.stdout.write(
      values.json
        ? jsonText(report)
        : `exported ${report.drawers} drawers, ${report.sources} sources, ${report.knowledgeGraphRows} knowledge-graph rows to ${file}\n`,
    );
    return 0;
  },
});
