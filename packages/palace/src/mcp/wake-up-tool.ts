import { schemaTool, type Tool } from "@atrium/spec";
import { countTokens } from "gpt-tokenizer";
import { z } from "zod";
import { buildWakeUp } from "../layers/wake-up.js";
import type { Palace } from "../palace.js";
import { optional, wholeNumber } from "./tool-fields.js";

/** The default wake-up budget, in gpt-tokenizer tokens. */
export const DEFAULT_WAKE_UP_BUDGET = 170;

/** wake_up: the small context an agent reads first (who the user is, what matters most). */
export function wakeUpTool(palace: Palace): Tool {
  return schemaTool({
    name: "wake_up",
    description:
      "Read this first: who the user is and their most important memories, fitted to a token budget (default 170). Search for anything more.",
    inputSchema: z.strictObject({
      budget: optional(
        wholeNumber("budget", 1, Number.MAX_SAFE_INTEGER).describe(
          `Most tokens of the text (default ${DEFAULT_WAKE_UP_BUDGET})`,
        ),
      ),
    }),
    async execute({ budget }) {
      const text = await buildWakeUp(palace, budget ?? DEFAULT_WAKE_UP_BUDGET);
      return { text, tokens: countTokens(text) };
    },
  });
}
