import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ConfigError } from "@atrium/spec";

/** What a Pyodide worker thread runs: a file, or (from TypeScript sources) a boot script. */
export type PythonWorkerEntry = { url: URL } | { evalSource: string };

/**
 * The package's own worker entry. In a build it is `python-worker.js` beside `index.js` in
 * `dist/`; from TypeScript sources (tests, `tsx`) the worker loads tsx's loader first. Kept apart
 * from the worker client so the OS sandbox's bundle, which names its own entry, does not carry a
 * reference to a file it never reads.
 */
export function packagedWorkerEntry(): PythonWorkerEntry {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) {
    const entry = new URL("./python-worker.js", here);
    if (!existsSync(fileURLToPath(entry))) {
      throw new ConfigError(
        `PythonExecutor: its worker entry is missing (looked for ${fileURLToPath(entry)}); build src/worker/python-worker.ts as dist/python-worker.js`,
      );
    }
    return { url: entry };
  }
  const entry = new URL("./worker/python-worker.ts", here).href;
  const tsxApi = new URL("./index.mjs", pathToFileURL(createRequire(here).resolve("tsx/esm/api"))).href;
  return {
    evalSource: `import(${JSON.stringify(tsxApi)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`,
  };
}
