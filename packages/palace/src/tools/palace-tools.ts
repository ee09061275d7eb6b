import { PalaceAccess } from "../access/palace-access.js";
import { invalidInput } from "../errors.js";
import type { Palace } from "../palace.js";
import { PalaceView } from "../view/palace-view.js";
import { diaryTools } from "./diary-tools.js";
import { drawerTools } from "./drawer-tools.js";
import { knowledgeGraphTools } from "./kg-tools.js";
import { memoryTools } from "./memory-tools.js";
import { searchTools } from "./search-tools.js";
import { taxonomyTools } from "./taxonomy-tools.js";
import type { PalaceTool } from "./tool-annotations.js";
import type { PalaceToolsOptions } from "./tool-options.js";
import { tunnelTools } from "./tunnel-tools.js";
import { wakeUpTool } from "./wake-up-tool.js";

/**
 * The palace's tools: spec `Tool`s an agent calls (functions in a code sandbox, or native tool
 * calls), and the very objects the palace's MCP server serves, each with its MCP annotations.
 * Names are snake_case, every argument and result field camelCase. Every input is checked by its
 * zod schema, so a bad call comes back naming the field, and everything goes through one
 * identity's `PalaceView` (a bare `Palace` is its owner's, every wing).
 */
export function palaceTools(target: Palace | PalaceView, options: PalaceToolsOptions = {}): PalaceTool[] {
  for (const key of ["wing", "room", "agent", "source"] as const) {
    const value = options[key];
    if (value !== undefined && (typeof value !== "string" || value.trim() === "")) {
      throw invalidInput(`options.${key}`, "must be non-empty text when given");
    }
  }
  const base = target instanceof PalaceView ? target : new PalaceView(target, PalaceAccess.ADMIN);
  // Confined to a wing, every tool (facts and diary too) works in that wing alone.
  const view = options.wing === undefined ? base : base.narrowedTo(options.wing);
  const tools = [
    ...taxonomyTools(view),
    ...searchTools(view),
    ...memoryTools(view, options),
    ...drawerTools(view),
    ...knowledgeGraphTools(view),
    ...tunnelTools(view),
    ...diaryTools(view, options),
    wakeUpTool(view),
  ];
  return options.only === undefined ? tools : only(tools, options.only);
}

/** The tools named, in the palace's order; an unknown name is refused. */
function only(tools: PalaceTool[], names: readonly string[]): PalaceTool[] {
  if (!Array.isArray(names)) throw invalidInput("options.only", "must be an array of tool names");
  const known = new Set(tools.map((tool) => tool.name));
  for (const name of names) {
    if (!known.has(name)) {
      throw invalidInput(
        "options.only",
        `has ${JSON.stringify(name)}, not a palace tool; known: ${[...known].join(", ")}`,
      );
    }
  }
  const wanted = new Set(names);
  return tools.filter((tool) => wanted.has(tool.name));
}
