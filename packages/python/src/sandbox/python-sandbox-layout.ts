/** Where Pyodide's files are inside the OS sandbox (mounted read-only from the host's package). */
export const SANDBOX_PYODIDE_DIR = "/atrium/pyodide";

/**
 * The largest JSON frame either side of the sandbox's channel accepts. A run's result is the
 * largest message: its value (`maxTransferChars`, 5 M characters by default, up to 6 bytes each
 * as escaped JSON) and its logs; the executor bounds both again when it reads them.
 */
export const MAX_SANDBOX_JSON_BYTES = 64 * 1024 * 1024;

/**
 * The one large thing that crosses: a memory snapshot of a fresh interpreter (tens of MB), from
 * the first sandbox while it boots, and to later sandboxes with their boot. Bytes are refused
 * once a sandbox has booted.
 */
export const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;
