/** Where Pyodide's files are inside the OS sandbox (mounted read-only from the host's package). */
export const SANDBOX_PYODIDE_DIR = "/atrium/pyodide";

/**
 * The largest frame either side of the sandbox's channel accepts: a memory snapshot of a fresh
 * interpreter (tens of MB) is the largest thing that crosses; code, tool outcomes and results
 * are bounded far below this by the executor's own limits.
 */
export const MAX_SANDBOX_FRAME_BYTES = 256 * 1024 * 1024;
