import type { Tool } from "@atrium/spec";
import { PalaceAccess } from "../access/palace-access.js";
import { invalidInput } from "../errors.js";
import type { Palace } from "../palace.js";
import { PalaceView } from "../view/palace-view.js";
import { diaryTools } from "./diary-tools.js";
import { knowledgeGraphTools } from "./kg-tools.js";
import { memoryTools } from "./memory-tools.js";
import type { PalaceToolsOptions } from "./tool-options.js";

/**
 * The palace as tools for an agent (spec `Tool`s: functions in a code sandbox, or native tool
 * calls): recall, remember, kg_query, kg_add, diary_write, diary_read. Every input is checked by
 * its zod schema, so a bad call comes back as an observation naming the field.
 */
export function palaceTools(target: Palace | PalaceView, options: PalaceToolsOptions = {}): Tool[] {
  for (const key of ["wing", "room", "agent", "source"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value.trim() === "")) {
      throw invalidInput(`options.${key}`, "must be non-empty text when given");
    }
  }
  const base = target instanceof PalaceView ? target : new PalaceView(target, PalaceAccess.ADMIN);
  // Confined to a wing, every tool (facts and diary too) works in that wing alone.
  const palace = options.wing === undefined ? base : base.narrowedTo(options.wing);
  return [...memoryTools(palace, options), ...knowledgeGraphTools(palace), ...diaryTools(palace, options)];
}
