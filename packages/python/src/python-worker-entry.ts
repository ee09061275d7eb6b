import { type WorkerEntry, workerEntry } from "@atrium/kit";

/**
 * The package's own worker entry (kit's launcher): in a build, `python-worker.js` beside
 * `index.js` in `dist/`; from TypeScript sources (tests, `tsx`), a boot script that loads tsx's
 * loader first. Kept apart from the worker client so the OS sandbox's bundle, which names its
 * own entry, does not carry a reference to a file it never reads.
 */
export function packagedWorkerEntry(): WorkerEntry {
  return workerEntry({
    from: import.meta.url,
    source: "./worker/python-worker.ts",
    built: "./python-worker.js",
    owner: "PythonExecutor",
  });
}
