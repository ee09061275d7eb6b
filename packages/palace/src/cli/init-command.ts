import { resolve } from "node:path";
import { resolveEmbedding } from "@atrium/chroma";
import { defineCommand } from "@atrium/kit/cli";
import { palacePaths } from "../db/palace-dir.js";
import { initPalace } from "../open-palace.js";
import { PALACE_OPTION, palaceDir, storeOptions } from "./palace-option.js";

export const initCommand = defineCommand({
  name: "init",
  summary: "create a palace",
  usage: "[DIR] [--identity TEXT] [--name NAME] [--embedding SPEC]",
  description:
    "Creates a palace: DIR/palace.json (settings), DIR/palace.sqlite (drawers, knowledge graph) and\nDIR/chroma (vectors). Refuses a directory that already is a palace.",
  arguments: [["DIR", "where to create it (default: --palace, $ATRIUM_PALACE, else ~/.atrium/palace)"]],
  options: {
    ...PALACE_OPTION,
    identity: {
      type: "string",
      value: "TEXT",
      help: "who the user (or agent) is: the first line of every wake-up",
    },
    name: { type: "string", value: "NAME", help: "the palace's name (default: the directory's name)" },
    embedding: {
      type: "string",
      value: "SPEC",
      help: "hashing (default, offline), openai:MODEL, ollama:MODEL, ...",
    },
  },
  positionals: { max: 1 },
  async run({ values, positionals }, io) {
    const [given] = positionals;
    const dir = given === undefined ? palaceDir(values, io.env) : resolve(given);
    const { identity, name, embedding } = values;
    const { postgresUrl } = storeOptions(io.env);
    const config = await initPalace(dir, {
      ...(postgresUrl === undefined ? {} : { postgresUrl }),
      ...(identity === undefined ? {} : { identity }),
      ...(name === undefined ? {} : { name }),
      ...(embedding === undefined ? {} : { embedding: resolveEmbedding(embedding) }),
    });
    io.stdout.write(
      `created palace ${config.name} in ${palacePaths(dir).dir} (embedding ${config.embedding}${config.postgres ? `; records in ${config.postgres}` : ""})\n`,
    );
    return 0;
  },
});
