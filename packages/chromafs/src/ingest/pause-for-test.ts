/**
 * A test hook, and nothing else: `ATRIUM_INGEST_PAUSE_AT=<point>` makes ingest print
 * `atrium-docs ingest: paused at <point>` on stderr when it reaches that point and then wait
 * forever, so a test can `kill -9` a real ingest at an exact phase (the crash-safety test in
 * `test/ingest-crash.test.ts`). Timing alone can't hit "after the last chunk, before the tree"
 * reliably on a loaded machine. Unset (always, outside that test), it costs one lookup.
 *
 * - `chunks`: after the first upsert batch, while more remain (the collection holds some chunks);
 * - `tree`: every chunk written, the path tree not yet;
 * - `cleanup`: the new tree written, stale chunks not yet deleted (plain ingest);
 * - `swap`: a rebuild's old collection dropped, the new one not yet renamed into its place.
 */
export type IngestPausePoint = "chunks" | "tree" | "cleanup" | "swap";

export const INGEST_PAUSE_ENV = "ATRIUM_INGEST_PAUSE_AT";

export async function pauseForTest(point: IngestPausePoint): Promise<void> {
  if (process.env[INGEST_PAUSE_ENV] !== point) return;
  process.stderr.write(`atrium-docs ingest: paused at ${point}\n`);
  // A pending timer keeps the process alive until it is killed.
  await new Promise(() => setInterval(() => {}, 60_000));
}
