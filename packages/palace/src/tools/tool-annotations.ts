import type { Tool, ToolAnnotations } from "@atrium/spec";

export type { ToolAnnotations };

/** A palace tool: a spec `Tool` whose annotations (what MCP lists with it) are always given. */
export interface PalaceTool extends Tool {
  readonly annotations: ToolAnnotations;
}

/** A tool that only reads the palace (searching still counts a hit's accesses). */
export function reading(tool: Tool): PalaceTool {
  return { ...tool, annotations: { readOnlyHint: true, openWorldHint: false } };
}

/** A tool that writes: `destructive` when it overwrites or removes, `idempotent` when a repeat changes nothing. */
export function writing(tool: Tool, hints: { destructive: boolean; idempotent: boolean }): PalaceTool {
  return {
    ...tool,
    annotations: {
      readOnlyHint: false,
      destructiveHint: hints.destructive,
      idempotentHint: hints.idempotent,
      openWorldHint: false,
    },
  };
}
