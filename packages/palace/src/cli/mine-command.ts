import { choiceOption, defineCommand, jsonText, UsageError } from "@atrium/kit/cli";
import { ValidationError } from "@atrium/spec";
import { readPalaceConfig } from "../db/palace-dir.js";
import { PalaceError } from "../errors.js";
import { CONVERSATION_FORMATS } from "../formats/conversation.js";
import { mine } from "../mining/mine.js";
import type { MineResult } from "../mining/mine-types.js";
import { progressBar } from "../mining/progress-bar.js";
import { parseRoomRules, type RoomRule } from "../mining/rooms.js";
import type { Palace } from "../palace.js";
import { PALACE_OPTION, withPalace } from "./palace-option.js";

export const mineCommand = defineCommand({
  name: "mine",
  summary: "file conversations or a project folder",
  usage: "<path> --mode convos|project --wing <wing> [--format F] [--chunking turn|exchange] [--json]",
  description: `Files a folder or an export into the palace (created if missing), one drawer per chunk, each in
a room chosen by keywords, headings and folder names (a "rooms" list in palace.json comes first:
[{"name": "billing", "keywords": ["invoice"], "paths": ["src/billing/**"]}]). Incremental: sources
unchanged since the last run are skipped; a run cut short (even by kill -9) is finished by running
it again. A file that cannot be read is reported with its position and the rest is still mined;
the exit code is then 1. Progress goes to stderr on a terminal; errors and the summary always.`,
  arguments: [["<path>", "a folder, or an export file (convos)"]],
  options: {
    mode: {
      type: "string",
      label: "--mode convos|project",
      help: "convos: conversation exports: Claude.ai, ChatGPT, Claude Code, Codex, Slack,\nplain text; project: a folder of code and docs (respects .gitignore)",
    },
    wing: { type: "string", value: "<wing>", help: "the wing to file into (a person or project)" },
    format: {
      type: "string",
      value: "F",
      help: `read every file as ${CONVERSATION_FORMATS.join(", ")} (default: detected)`,
    },
    chunking: {
      type: "string",
      value: "C",
      help: "turn: a drawer per message; exchange: a user message with its replies (default)",
    },
    json: { type: "boolean", help: "print the result as JSON (counts and errors); no progress" },
    ...PALACE_OPTION,
  },
  positionals: { min: 1, max: 1, names: "the path to mine" },
  async run({ values, positionals }, io) {
    const mode = choiceOption(values.mode, "--mode", ["convos", "project"] as const);
    if (mode === undefined) throw new UsageError("--mode is required: convos or project");
    const { wing } = values;
    if (wing === undefined || wing.trim() === "")
      throw new UsageError("--wing is required: the wing to file into");
    const format = choiceOption(values.format, "--format", CONVERSATION_FORMATS);
    const chunking = choiceOption(values.chunking, "--chunking", ["turn", "exchange"] as const);
    if (mode === "project" && (format !== undefined || chunking !== undefined)) {
      throw new UsageError("--format and --chunking apply only with --mode convos");
    }
    const result = await withPalace(values, io.env, { create: true }, (palace) =>
      minePath(palace, positionals[0] as string, {
        mode,
        wing,
        ...(format === undefined ? {} : { format }),
        ...(chunking === undefined ? {} : { chunking }),
        onProgress: progressBar({ stream: io.stderr, quiet: values.json }),
      }),
    );
    if (values.json) io.stdout.write(jsonText(result));
    return result.errors.length > 0 ? 1 : 0;
  },
});

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
