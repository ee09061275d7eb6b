import { defineCommand, jsonText, UsageError } from "@atrium/kit/cli";
import { JSON_OPTION, PALACE_OPTION, withPalace } from "./palace-option.js";

export const statusCommand = defineCommand({
  name: "status",
  summary: "what the palace holds",
  usage: "[DIR] [--json]",
  description:
    "What the palace holds: drawers, wings, rooms, mined sources, pinned drawers, facts, and whether\nthe vector index is in sync with the registry (run repair if it stays behind).",
  arguments: [["DIR", "the palace (same as --palace DIR)"]],
  options: { ...JSON_OPTION, ...PALACE_OPTION },
  positionals: { max: 1 },
  async run({ values, positionals }, io) {
    const [dir] = positionals;
    if (dir !== undefined && values.palace !== undefined) {
      throw new UsageError("give the palace as DIR or as --palace DIR, not both");
    }
    const { status, kg } = await withPalace({ palace: dir ?? values.palace }, io.env, {}, async (palace) => ({
      status: await palace.status(),
      kg: palace.kg.stats(),
    }));
    if (values.json) {
      io.stdout.write(jsonText({ ...status, knowledgeGraph: kg }));
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
});
