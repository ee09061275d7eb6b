import type { Worker } from "node:worker_threads";
import { startWorkerThread as startPackagedWorker } from "@atrium/kit";
import type { WorkerStart } from "./pool-protocol.js";

/**
 * Starts one pool worker thread (kit's launcher): from a build, the worker is its own entry
 * (`dist/session-worker.js`, asked for from `dist/` or `dist/cli/`); from TypeScript sources
 * (tests, `tsx`), the thread loads tsx's loader first. The thread inherits this process's
 * `--conditions`, so it resolves workspace packages the way this one does.
 */
export function startWorkerThread(start: WorkerStart): Worker {
  return startPackagedWorker(
    {
      from: import.meta.url,
      source: "./session-worker.ts",
      built: ["./session-worker.js", "../session-worker.js"],
      owner: "SessionWorkerPool",
    },
    { workerData: start },
  );
}
