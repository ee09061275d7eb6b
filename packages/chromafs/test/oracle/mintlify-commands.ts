import { GNU_FIDELITY_COMMANDS } from "./gnu-fidelity-commands.js";
import { ORACLE_COMMANDS, type OracleCommand } from "./oracle-commands.js";
import { TEXT_TOOL_COMMANDS } from "./text-tool-commands.js";

/** Every oracle command over the Mintlify corpus. */
export const MINTLIFY_COMMANDS: readonly OracleCommand[] = [
  ...ORACLE_COMMANDS,
  ...TEXT_TOOL_COMMANDS,
  ...GNU_FIDELITY_COMMANDS,
];
