import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import { type PackageFileOptions, packageFile, runsFromSource } from "./package-file.js";

/**
 * What a worker thread runs: a file (a build's entry, or a bundle of the OS sandbox's), or, from
 * TypeScript sources, a boot script that registers tsx's loader and imports the `.ts` entry.
 */
export type WorkerEntry = { url: URL } | { evalSource: string };

/**
 * The entry of a worker thread a package ships (see `PackageFileOptions`): its built file, or
 * from TypeScript sources (tests, `tsx`) a boot script that loads tsx first. tsx is resolved
 * from `from`, i.e. from the asking package's own dependencies. The thread inherits this
 * process's `--conditions`, so it resolves workspace packages the way this one does.
 */
export function workerEntry(files: PackageFileOptions): WorkerEntry {
  const entry = packageFile(files);
  if (!runsFromSource(files.from)) return { url: entry };
  const tsxApi = new URL("./index.mjs", pathToFileURL(createRequire(files.from).resolve("tsx/esm/api"))).href;
  return {
    evalSource: `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`,
  };
}

/**
 * Starts a worker thread on `entry` (a `WorkerEntry`, or the files to find one with): the one
 * launcher of Atrium's worker threads, from source or from a build alike.
 */
export function startWorkerThread(
  entry: WorkerEntry | PackageFileOptions,
  options: WorkerOptions = {},
): Worker {
  const resolved = "url" in entry || "evalSource" in entry ? entry : workerEntry(entry);
  return "evalSource" in resolved
    ? new Worker(resolved.evalSource, { ...options, eval: true })
    : new Worker(resolved.url, options);
}
