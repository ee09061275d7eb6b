import { defineConfig } from "tsup";

export default defineConfig({
  // The Pyodide sandbox runs in a worker thread, loaded from its own file next to index.js.
  entry: {
    index: "src/index.ts",
    "python-worker": "src/worker/python-worker.ts",
  },
  format: "esm",
  dts: { entry: { index: "src/index.ts" } },
  clean: true,
  sourcemap: true,
  target: "node20",
  // Pyodide loads its wasm and standard library from its own package directory at run time.
  external: ["pyodide"],
});
