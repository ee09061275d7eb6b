import { ValidationError } from "@atrium/spec";
import { readPalaceConfig } from "../db/palace-dir.js";
import { PalaceError } from "../errors.js";
import { CONVERSATION_FORMATS } from "../formats/conversation.js";
import { mine } from "../mining/mine.js";
import type { MineResult } from "../mining/mine-types.js";
import { progressBar } from "../mining/progress-bar.js";
import { parseRoomRules, type RoomRule } from "../mining/rooms.js";
import type { Palace } from "../palace.js";
import {
  type CliCommand,
  choiceOption,
  parseCommandArgs,
  printHelp,
  stringOption,
  UsageError,
} from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace mine <path> --mode convos|project --wing <wing> [--format F] [--chunking turn|exchange]

Files a folder or an export into the palace (created if missing), one drawer per chunk, each in
a room chosen by keywords, headings and folder names (a "rooms" list in palace.json comes first:
[{"name": "billing", "keywords": ["invoice"], "paths": ["src/billing/**"]}]). Incremental: sources
unchanged since the last run are skipped; a run cut short (even by kill -9) is finished by running
it again. A file that cannot be read is reported with its position and the rest is still mined;
the exit code is then 1. Progress goes to stderr.

  <path>                a folder, or an export file (convos)
  --mode convos         conversation exports: Claude.ai, ChatGPT, Claude Code, Codex, Slack, plain text
  --mode project        a folder of code and docs (respects .gitignore)
  --wing <wing>         the wing to file into (a person or project)
  --format F            read every file as ${CONVERSATION_FORMATS.join(", ")} (default: detected)
  --chunking C          turn: a drawer per message; exchange: a user message with its replies (default)
${PALACE_OPTION_HELP}
  -h, --help            show this help
`;

export const mineCommand: CliCommand = {
  name: "mine",
  synopsis: "mine <path> --mode convos|project --wing W",
  summary: "file conversations or a project folder",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      {
        ...PALACE_OPTION,
        mode: { type: "string" },
        wing: { type: "string" },
        format: { type: "string" },
        chunking: { type: "string" },
      },
      { min: 1, max: 1, names: "the path to mine" },
    );
    if (!args) return printHelp(io, USAGE);
    const mode = choiceOption(args.values, "mode", ["convos", "project"] as const);
    if (mode === undefined) throw new UsageError("--mode is required: convos or project");
    const wing = stringOption(args.values, "wing");
    if (wing === undefined || wing.trim() === "")
      throw new UsageError("--wing is required: the wing to file into");
    const format = choiceOption(args.values, "format", CONVERSATION_FORMATS);
    const chunking = choiceOption(args.values, "chunking", ["turn", "exchange"] as const);
    if (mode === "project" && (format !== undefined || chunking !== undefined)) {
      throw new UsageError("--format and --chunking apply only with --mode convos");
    }
    const result = await withPalace(args.values, io.env, { create: true }, (palace) =>
      minePath(palace, args.positionals[0] as string, {
        mode,
        wing,
        ...(format === undefined ? {} : { format }),
        ...(chunking === undefined ? {} : { chunking }),
        onProgress: progressBar({ stream: io.stderr }),
      }),
    );
    return result.errors.length > 0 ? 1 : 0;
  },
};

/** `mine` with the palace's own `rooms` config (palace.json), if it has one. */
export async function minePath(
  palace: Palace,
  path: string,
  options: Omit<Parameters<typeof mine>[2], "rooms">,
): Promise<MineResult> {
  const { rooms } = await readPalaceConfig(palace.dir);
  if (rooms === undefined) return mine(palace, path, options);
  let rules: RoomRule[];
  try {
    rules = parseRoomRules(rooms);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new PalaceError("palace/format", `${palace.paths.config}: ${error.message}`);
  }
  return mine(palace, path, { ...options, rooms: rules });
}
