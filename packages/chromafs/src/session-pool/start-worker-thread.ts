import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { ConfigError } from "@atrium/spec";
import type { WorkerStart } from "./pool-protocol.js";

/**
 * Starts one pool worker thread. From a build, the worker is its own entry
 * (`dist/session-worker.js`); from TypeScript sources (tests, `tsx`), the thread loads tsx's
 * loader first. The thread inherits this process's `--conditions`, so it resolves workspace
 * packages the way this one does.
 */
export function startWorkerThread(start: WorkerStart): Worker {
  const here = import.meta.url;
  const options = { workerData: start };
  if (!here.endsWith(".ts")) return new Worker(builtWorkerEntry(here), options);
  const entry = new URL("./session-worker.ts", here).href;
  const tsxApi = new URL("./index.mjs", pathToFileURL(createRequire(here).resolve("tsx/esm/api"))).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/** The code asking sits in `dist/` (a chunk or `index.js`) or one folder down (`dist/cli/`). */
function builtWorkerEntry(here: string): URL {
  const candidates = [new URL("./session-worker.js", here), new URL("../session-worker.js", here)];
  const found = candidates.find((url) => existsSync(fileURLToPath(url)));
  if (!found) {
    throw new ConfigError(
      `SessionWorkerPool: its worker entry is missing (looked for ${candidates.map((url) => fileURLToPath(url)).join(" and ")}); build src/session-pool/session-worker.ts as dist/session-worker.js`,
    );
  }
  return found;
}
