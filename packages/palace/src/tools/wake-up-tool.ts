import { schemaTool } from "@atrium/kit";
import { countTokens } from "gpt-tokenizer";
import { z } from "zod";
import { DEFAULT_WAKE_UP_TOKENS, wakeUp } from "../layers/index.js";
import type { PalaceView } from "../view/palace-view.js";
import { type PalaceTool, reading } from "./tool-annotations.js";
import { defined, optional, text, wholeNumber } from "./tool-fields.js";

/** wake_up: the small context an agent reads first (who the user is, what matters most). */
export function wakeUpTool(palace: PalaceView): PalaceTool {
  const tool = schemaTool({
    name: "wake_up",
    description: `Read this first: who the user is and their most important memories and facts, fitted to a token budget (default ${DEFAULT_WAKE_UP_TOKENS}). Search for anything more.`,
    inputSchema: z.strictObject({
      budget: optional(
        wholeNumber("budget", 0, palace.limits.maxWakeUpTokens).describe(
          `Most tokens of the text, as gpt-tokenizer counts them (default ${DEFAULT_WAKE_UP_TOKENS})`,
        ),
      ),
      wing: optional(text("a wing name").describe("Only this wing's people and drawers")),
      user: optional(
        text("the user's entity").describe('The knowledge-graph entity that is the user (default "user")'),
      ),
    }),
    async execute({ budget, wing, user }) {
      const woken = await wakeUp(palace.palace, {
        ...defined({ wing, user }),
        access: palace.access,
        ...(budget === undefined ? {} : { budgetTokens: budget }),
      });
      return { text: woken, tokens: countTokens(woken) };
    },
  });
  return reading(tool);
}
