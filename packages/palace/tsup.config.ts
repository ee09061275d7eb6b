import { defineConfig } from "tsup";

export default defineConfig({
  // The PostgreSQL store's connection runs on a worker thread, loaded from its own file
  // (db/postgres/pg-sync-client.ts finds it beside index.js, or above cli/main.js).
  entry: {
    index: "src/index.ts",
    "cli/main": "src/cli/main.ts",
    "pg-worker": "src/db/postgres/pg-worker.ts",
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
});
