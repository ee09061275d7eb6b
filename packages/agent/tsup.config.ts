import { defineConfig } from "tsup";

export default defineConfig({
  // The QuickJS sandbox runs in a worker thread, loaded from its own file next to index.js.
  entry: {
    index: "src/index.ts",
    "cli/main": "src/cli/main.ts",
    "sandbox-worker": "src/executors/quickjs/sandbox-worker.ts",
  },
  format: "esm",
  dts: { entry: { index: "src/index.ts" } },
  clean: true,
  sourcemap: true,
  target: "node20",
});
