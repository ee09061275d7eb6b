import { defineConfig } from "tsup";

export default defineConfig([
  {
    // The QuickJS sandbox runs in a worker thread, loaded from its own file next to index.js.
    entry: {
      index: "src/index.ts",
      "cli/main": "src/cli/main.ts",
      "sandbox-worker": "src/executors/quickjs/sandbox-worker.ts",
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
  },
  {
    // Isolation "process": the OS-sandboxed process sees no node_modules, so its two files are
    // self-contained bundles (dist/sandbox/) that quickjs-process-client.ts finds.
    entry: {
      "quickjs-sandbox": "src/executors/quickjs/process/quickjs-sandbox-relay.ts",
      "quickjs-sandbox-worker": "src/executors/quickjs/sandbox-worker.ts",
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
