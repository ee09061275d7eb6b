import { invalidInput } from "../errors.js";

export interface PalaceToolsOptions {
  /**
   * Confine every tool to this wing: what the view may do there, nothing elsewhere; memories are
   * filed there. Default: the whole view, memories in "memories" (or the view's own wing).
   */
  wing?: string;
  /** The room memories go to when a call names none (default "general"). */
  room?: string;
  /**
   * Whose diary `diary_write` and `diary_read` keep; a call naming another agent is refused.
   * Default: the agent a call names, else "agent".
   */
  agent?: string;
  /** The `source` of remembered drawers (default "agent"). */
  source?: string;
  /** Only these tools, by name (default: every palace tool), e.g. an agent's memory tools only. */
  only?: readonly string[];
}

/** The default diary of tools made for no agent. */
const DEFAULT_AGENT = "agent";

/** The wing a call may use: the confined one, refusing any other, else the call's own. */
export function toolWing(options: PalaceToolsOptions, asked: string | undefined): string | undefined {
  return confined("wing", options.wing, asked);
}

/** Whose diary a call keeps: the tools' agent, refusing any other, else the call's own (default "agent"). */
export function toolAgent(options: PalaceToolsOptions, asked: string | undefined): string {
  return confined("agent", options.agent, asked) ?? DEFAULT_AGENT;
}

function confined(field: string, fixed: string | undefined, asked: string | undefined): string | undefined {
  if (fixed === undefined || asked === undefined || asked === fixed) return fixed ?? asked;
  throw invalidInput(
    field,
    `these tools are confined to ${field} ${JSON.stringify(fixed)}; leave ${field} out or pass ${JSON.stringify(fixed)}`,
  );
}
