import { resolveEmbedding } from "@atrium/chroma";
import { defineCommand, jsonText, UsageError } from "@atrium/kit/cli";
import { repairPalace } from "../repair.js";
import { JSON_OPTION, PALACE_OPTION, palaceDir, storeOptions } from "./palace-option.js";

export const repairCommand = defineCommand({
  name: "repair",
  summary: "fix the indexes from the drawers",
  usage: "[--reembed [--embedding SPEC]] [--json]",
  description:
    "Makes the palace consistent again: applies vector writes a crash left pending, adds vectors the\nindex lacks and removes those no drawer has, and rebuilds the keyword index from the drawers.\nSafe to run any time; a repair cut short is finished by running it again.",
  options: {
    reembed: { type: "boolean", help: "drop the vector index and embed every drawer again" },
    embedding: {
      type: "string",
      value: "SPEC",
      help: "with --reembed: switch the palace to this embedding (hashing, openai:MODEL, ...)",
    },
    ...JSON_OPTION,
    ...PALACE_OPTION,
  },
  async run({ values }, io) {
    const reembed = values.reembed === true;
    const spec = values.embedding;
    if (spec !== undefined && !reembed) {
      throw new UsageError(
        "--embedding applies only with --reembed (switching embeddings re-embeds every drawer)",
      );
    }
    const report = await repairPalace(palaceDir(values, io.env), {
      ...storeOptions(io.env),
      reembed,
      ...(spec === undefined ? {} : { embedding: resolveEmbedding(spec) }),
    });
    io.stdout.write(
      values.json
        ? jsonText(report)
        : `${report.reembedded ? "re-embedded every drawer; " : ""}${report.replayed} pending writes applied, ${report.vectorsAdded} vectors added, ${report.vectorsRemoved} removed, ${report.lexicalRows} keyword rows rebuilt\n`,
    );
    return 0;
  },
});
