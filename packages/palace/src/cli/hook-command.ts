import { basename } from "node:path";
import { type CliIo, defineCommand, UsageError } from "@atrium/kit/cli";
import { formatMineError } from "../mining/mine-types.js";
import { minePath } from "./mine-command.js";
import { PALACE_OPTION, withPalace } from "./palace-option.js";

/** The hook events whose transcript is filed. */
const EVENTS = ["Stop", "PreCompact"];

export const hookCommand = defineCommand({
  name: "hook",
  summary: "file a Claude Code session (Stop, PreCompact hooks)",
  usage: "claude-code [--wing W]",
  description: `For Claude Code's Stop and PreCompact hooks: reads the hook's JSON from stdin (transcript_path,
session_id, hook_event_name, cwd) and files that session's transcript into the palace (created if
missing), in wing W (default: the name of the project directory, from the hook's cwd). Mining is
incremental, so running it after every turn only files what is new. Prints nothing and exits 0 on
success, so Claude Code carries on; a failure is one line on stderr and exit 1 (never 2, which
would block Claude).

In .claude/settings.json:
  {"hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "atrium-palace hook claude-code"}]}],
    "PreCompact": [{"hooks": [{"type": "command", "command": "atrium-palace hook claude-code"}]}]}}`,
  arguments: [["claude-code", "the agent whose hook calls it"]],
  options: { wing: { type: "string", value: "W", help: "the wing to file into" }, ...PALACE_OPTION },
  positionals: { max: 1 },
  // Exit code 2 blocks Claude Code: every failure here, a usage error too, exits 1.
  usageExitCode: 1,
  async run({ values, positionals }, io) {
    const [agent] = positionals;
    if (agent !== "claude-code") {
      throw new UsageError(
        agent === undefined ? "missing agent: claude-code" : `unknown agent '${agent}': use claude-code`,
      );
    }
    const input = parseHookInput(await readAll(io.stdin));
    const wing = values.wing ?? projectWing(input.cwd ?? io.env.CLAUDE_PROJECT_DIR ?? process.cwd());
    const result = await withPalace(values, io.env, { create: true }, (palace) =>
      minePath(palace, input.transcriptPath, { mode: "convos", format: "claude-code", wing }),
    );
    for (const error of result.errors) io.stderr.write(`atrium-palace hook: ${formatMineError(error)}\n`);
    return result.errors.length > 0 ? 1 : 0;
  },
});

interface HookInput {
  transcriptPath: string;
  cwd?: string;
}

/** The fields of Claude Code's hook JSON this command uses, each checked. */
export function parseHookInput(text: string): HookInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `stdin is not the hook's JSON (${(error as Error).message}); Claude Code sends {"transcript_path": ..., "hook_event_name": ...}`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError("stdin must be the hook's JSON object, with transcript_path and hook_event_name");
  }
  const record = value as Record<string, unknown>;
  const event = record.hook_event_name;
  if (typeof event !== "string" || !EVENTS.includes(event)) {
    throw new UsageError(
      `hook_event_name is ${JSON.stringify(event)}; this hook files transcripts on ${EVENTS.join(" and ")} only`,
    );
  }
  const transcriptPath = record.transcript_path;
  if (typeof transcriptPath !== "string" || transcriptPath === "") {
    throw new UsageError(
      "transcript_path is missing from the hook's JSON; it names the session's JSONL file",
    );
  }
  const cwd = typeof record.cwd === "string" && record.cwd !== "" ? record.cwd : undefined;
  return { transcriptPath, ...(cwd === undefined ? {} : { cwd }) };
}

/** A project directory's name as a wing ("/home/me/src/atrium" → "atrium"). */
function projectWing(dir: string): string {
  return basename(dir.replace(/[/\\]+$/, "")) || "claude-code";
}

/** Characters of the hook's JSON read from stdin; Claude Code sends a few hundred. */
const MAX_HOOK_INPUT_CHARS = 1_000_000;

async function readAll(stream: CliIo["stdin"]): Promise<string> {
  let text = "";
  stream.setEncoding("utf8");
  for await (const chunk of stream) {
    text += chunk as string;
    // Bounded: stdin may be anything (a device, a runaway producer), not only the hook's JSON.
    if (text.length > MAX_HOOK_INPUT_CHARS) {
      throw new UsageError(
        `stdin holds more than ${MAX_HOOK_INPUT_CHARS} characters; the hook's JSON is a small object with transcript_path and hook_event_name`,
      );
    }
  }
  return text;
}
