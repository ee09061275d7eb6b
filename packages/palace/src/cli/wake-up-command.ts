import { DEFAULT_WAKE_UP_TOKENS, wakeUp } from "../layers/index.js";
import { type CliCommand, integerOption, parseCommandArgs, printHelp, stringOption } from "./cli-command.js";
import { PALACE_OPTION, PALACE_OPTION_HELP, withPalace } from "./palace-option.js";

const USAGE = `Usage: atrium-palace wake-up [--budget N] [--wing W] [--user NAME]

Prints the wake-up context: who the user is (the identity, the people of the wing, the user's
facts), then what matters most (pinned drawers, top facts, drawers by access and recency), at
most N tokens as gpt-tokenizer counts them. Give it to an agent before its first turn.

  --budget N            most tokens (default ${DEFAULT_WAKE_UP_TOKENS})
  --wing W              only this wing's people and drawers
  --user NAME           the knowledge-graph entity that is the user (default "user")
${PALACE_OPTION_HELP}
  -h, --help            show this help
`;

export const wakeUpCommand: CliCommand = {
  name: "wake-up",
  synopsis: `wake-up [--budget ${DEFAULT_WAKE_UP_TOKENS}] [--wing W]`,
  summary: "the context an agent reads first",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(
      argv,
      { ...PALACE_OPTION, budget: { type: "string" }, wing: { type: "string" }, user: { type: "string" } },
      { min: 0, max: 0, names: "" },
    );
    if (!args) return printHelp(io, USAGE);
    const budget = integerOption(args.values, "budget", 0, Number.MAX_SAFE_INTEGER) ?? DEFAULT_WAKE_UP_TOKENS;
    const wing = stringOption(args.values, "wing");
    const user = stringOption(args.values, "user");
    const text = await withPalace(args.values, io.env, {}, (palace) =>
      wakeUp(palace, {
        budgetTokens: budget,
        ...(wing === undefined ? {} : { wing }),
        ...(user === undefined ? {} : { user }),
      }),
    );
    io.stdout.write(text === "" ? "" : `${text}\n`);
    return 0;
  },
};
