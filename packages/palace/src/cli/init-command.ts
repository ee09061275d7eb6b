import { resolve } from "node:path";
import { resolveEmbedding } from "@atrium/chroma";
import { palacePaths } from "../db/palace-dir.js";
import { initPalace } from "../open-palace.js";
import { type CliCommand, parseCommandArgs, printHelp, stringOption } from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, palaceDir } from "./palace-option.js";

const USAGE = `Usage: atrium-palace init [DIR] [--identity TEXT] [--name NAME] [--embedding SPEC]

Creates a palace: DIR/palace.json (settings), DIR/palace.sqlite (drawers, knowledge graph) and
DIR/chroma (vectors). Refuses a directory that already is a palace.

  DIR                   where to create it (default: --palace, $ATRIUM_PALACE, else ~/.atrium/palace)
${PALACE_OPTION_HELP}
  --identity TEXT       who the user (or agent) is: the first line of every wake-up
  --name NAME           the palace's name (default: the directory's name)
  --embedding SPEC      hashing (default, offline), openai:MODEL, ollama:MODEL, ...
  -h, --help            show this help
`;

export const initCommand: CliCommand = {
  name: "init",
  synopsis: "init [DIR] [--identity TEXT]",
  summary: "create a palace",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      {
        ...PALACE_OPTION,
        identity: { type: "string" },
        name: { type: "string" },
        embedding: { type: "string" },
      },
      { min: 0, max: 1, names: "DIR" },
    );
    if (!args) return printHelp(io, USAGE);
    const dir =
      args.positionals[0] === undefined ? palaceDir(args.values, io.env) : resolve(args.positionals[0]);
    const identity = stringOption(args.values, "identity");
    const name = stringOption(args.values, "name");
    const spec = stringOption(args.values, "embedding");
    const config = await initPalace(dir, {
      ...(identity === undefined ? {} : { identity }),
      ...(name === undefined ? {} : { name }),
      ...(spec === undefined ? {} : { embedding: resolveEmbedding(spec) }),
    });
    io.stdout.write(
      `created palace ${config.name} in ${palacePaths(dir).dir} (embedding ${config.embedding})\n`,
    );
    return 0;
  },
};
