import { invalidInput } from "../errors.js";

export interface PalaceToolsOptions {
  /** Confine recall and remember to this wing (memories are filed there); default: the whole palace, memories in "memories". */
  wing?: string;
  /** The room memories go to when a call names none (default "general"). */
  room?: string;
  /** Whose diary `diary_write` and `diary_read` keep (default "agent"). */
  agent?: string;
  /** The `source` of remembered drawers (default "agent"). */
  source?: string;
}

/** The wing a call may use: the confined one, refusing any other, else the call's own. */
export function toolWing(options: PalaceToolsOptions, asked: string | undefined): string | undefined {
  if (options.wing === undefined || asked === undefined || asked === options.wing)
    return options.wing ?? asked;
  throw invalidInput(
    "wing",
    `these tools are confined to wing ${JSON.stringify(options.wing)}; leave wing out or pass ${JSON.stringify(options.wing)}`,
  );
}
