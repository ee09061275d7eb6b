import { buildWakeUp } from "../layers/wake-up.js";
import { DEFAULT_WAKE_UP_BUDGET } from "../mcp/wake-up-tool.js";
import { type CliCommand, integerOption, parseCommandArgs, printHelp } from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, palaceDir, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace wake-up [--budget N]

Prints the wake-up context: who the user is (the identity) and their most important memories,
at most N tokens as gpt-tokenizer counts them. Give it to an agent before its first turn.

  --budget N            most tokens (default ${DEFAULT_WAKE_UP_BUDGET})
${PALACE_OPTION_HELP}
  -h, --help            show this help
`;

export const wakeUpCommand: CliCommand = {
  name: "wake-up",
  synopsis: `wake-up [--budget ${DEFAULT_WAKE_UP_BUDGET}]`,
  summary: "the context an agent reads first",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      { ...PALACE_OPTION, budget: { type: "string" } },
      { min: 0, max: 0, names: "" },
    );
    if (!args) return printHelp(io, USAGE);
    const budget = integerOption(args.values, "budget", 1, Number.MAX_SAFE_INTEGER) ?? DEFAULT_WAKE_UP_BUDGET;
    const text = await withPalace(palaceDir(args.values, io.env), {}, (palace) =>
      buildWakeUp(palace, budget),
    );
    io.stdout.write(text === "" ? "" : `${text}\n`);
    return 0;
  },
};
