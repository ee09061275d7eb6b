import { copyFile, mkdir } from "node:fs/promises";
import { defineConfig } from "tsup";

export default defineConfig([
  {
    // The Pyodide sandbox runs in a worker thread, loaded from its own file next to index.js.
    entry: {
      index: "src/index.ts",
      "python-worker": "src/worker/python-worker.ts",
    },
    format: "esm",
    // The declarations name Node's types (streams, child processes, `NodeJS.*`, and
    // `AsyncDisposable` below an ESNext lib, which @types/node declares): this line makes a user's
    // tsc load @types/node for them even when their tsconfig lists no `types` (TypeScript 6's and
    // 7's default, so `tsc --init`'s), instead of TS2503 "Cannot find namespace 'NodeJS'".
    dts: { entry: { index: "src/index.ts" }, banner: '/// <reference types="node" />' },
    clean: true,
    sourcemap: true,
    target: "node20",
    // Pyodide loads its wasm and standard library from its own package directory at run time.
    external: ["pyodide"],
    // The Python harness ships as a file (harness-file.ts reads it from dist/harness/ in a build).
    async onSuccess() {
      await mkdir("dist/harness", { recursive: true });
      await copyFile("src/harness/harness.py", "dist/harness/harness.py");
    },
  },
  {
    // The OS-sandboxed process sees no node_modules: its two files are self-contained bundles
    // (dist/sandbox/), which python-process-client.ts finds beside index.js.
    entry: {
      "python-sandbox": "src/sandbox/python-sandbox.ts",
      "python-sandbox-worker": "src/worker/python-worker.ts",
    },
    outDir: "dist/sandbox",
    format: "esm",
    outExtension: () => ({ js: ".mjs" }),
    splitting: false,
    noExternal: [/.*/],
    external: ["esbuild"],
    sourcemap: false,
    target: "node20",
    platform: "node",
  },
]);
