import { UsageError } from "../errors.js";

export { UsageError };

/**
 * The exit codes every Atrium CLI shares. A command may return others that it documents: a
 * guest command's own code, 3 for an answer after the last step, 130 for Ctrl-C.
 */
export const EXIT_CODES = { ok: 0, failed: 1, usage: 2 } as const;
