import type { Tool } from "@atrium/spec";

/**
 * MCP's hints about what a tool does to the palace, listed with the tool (`tools/list`). The
 * spec `Tool` has no field for them, so a palace tool carries its own and the palace's MCP
 * server lists them (`mcp/palace-mcp-server.ts`).
 */
export interface ToolAnnotations {
  /** It only reads. */
  readOnlyHint: boolean;
  /** A write that may overwrite or remove what is there (false: it only adds). */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  idempotentHint?: boolean;
  /** It reaches outside the palace: never. */
  openWorldHint: false;
}

/** A palace tool: a spec `Tool` (what an agent calls) with its MCP annotations. */
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
