/**
 * The one close rule for everything in Atrium that holds a resource (a sandbox, a database
 * handle, a server connection): `close()` frees it and is idempotent, a second call resolves and
 * does nothing; every later call that needs the resource rejects with `ClosedError` (code
 * "CLOSED"), so use-after-close is an error that names itself, never a hang or a crash.
 * `CodeExecutor` and `MemoryStore` extend it.
 */
export interface Closeable {
  close(): Promise<void>;
}
