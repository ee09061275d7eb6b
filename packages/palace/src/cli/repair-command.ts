import { resolveEmbedding } from "@atrium/chroma";
import { repairPalace } from "../repair.js";
import { type CliCommand, parseCommandArgs, printHelp, stringOption, UsageError } from "./cli-command.js";
import { chromaOption, PALACE_OPTION, PALACE_OPTION_HELP, palaceDir } from "./palace-option.js";

const USAGE = `Usage: atrium-palace repair [--reembed [--embedding SPEC]]

Makes the palace consistent again: applies vector writes a crash left pending, adds vectors the
index lacks and removes those no drawer has, and rebuilds the keyword index from the drawers.
Safe to run any time; a repair cut short is finished by running it again.

  --reembed             drop the vector index and embed every drawer again
  --embedding SPEC      with --reembed: switch the palace to this embedding (hashing, openai:MODEL, ...)
${PALACE_OPTION_HELP}
  -h, --help            show this help
`;

export const repairCommand: CliCommand = {
  name: "repair",
  synopsis: "repair [--reembed]",
  summary: "fix the indexes from the drawers",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      { ...PALACE_OPTION, reembed: { type: "boolean" }, embedding: { type: "string" } },
      { min: 0, max: 0, names: "" },
    );
    if (!args) return printHelp(io, USAGE);
    const reembed = args.values.reembed === true;
    const spec = stringOption(args.values, "embedding");
    if (spec !== undefined && !reembed) {
      throw new UsageError(
        "--embedding applies only with --reembed (switching embeddings re-embeds every drawer)",
      );
    }
    const report = await repairPalace(palaceDir(args.values, io.env), {
      ...chromaOption(io.env),
      reembed,
      ...(spec === undefined ? {} : { embedding: resolveEmbedding(spec) }),
    });
    io.stdout.write(
      `${report.reembedded ? "re-embedded every drawer; " : ""}${report.replayed} pending writes applied, ${report.vectorsAdded} vectors added, ${report.vectorsRemoved} removed, ${report.lexicalRows} keyword rows rebuilt\n`,
    );
    return 0;
  },
};
