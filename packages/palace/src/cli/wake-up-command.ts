import { defineCommand, integerOption } from "@atrium/kit/cli";
import { DEFAULT_WAKE_UP_TOKENS, wakeUp } from "../layers/index.js";
import { PALACE_OPTION, withPalace } from "./palace-option.js";

export const wakeUpCommand = defineCommand({
  name: "wake-up",
  summary: "the context an agent reads first",
  usage: "[--budget N] [--wing W] [--user NAME]",
  description:
    "Prints the wake-up context: who the user is (the identity, the people of the wing, the user's\nfacts), then what matters most (pinned drawers, top facts, drawers by access and recency), at\nmost N tokens as gpt-tokenizer counts them. Give it to an agent before its first turn.",
  options: {
    budget: { type: "string", value: "N", help: `most tokens (default ${DEFAULT_WAKE_UP_TOKENS})` },
    wing: { type: "string", value: "W", help: "only this wing's people and drawers" },
    user: {
      type: "string",
      value: "NAME",
      help: 'the knowledge-graph entity that is the user (default "user")',
    },
    ...PALACE_OPTION,
  },
  async run({ values }, io) {
    const budget = integerOption(values.budget, "--budget") ?? DEFAULT_WAKE_UP_TOKENS;
    const { wing, user } = values;
    const text = await withPalace(values, io.env, {}, (palace) =>
      wakeUp(palace, {
        budgetTokens: budget,
        ...(wing === undefined ? {} : { wing }),
        ...(user === undefined ? {} : { user }),
      }),
    );
    io.stdout.write(text === "" ? "" : `${text}\n`);
    return 0;
  },
});
