import { defineConfig } from "tsup";

export default defineConfig({
  // Pooled docs sessions run in worker threads, loaded from their own file next to index.js.
  entry: {
    index: "src/index.ts",
    "cli/main": "src/cli/main.ts",
    "session-worker": "src/session-pool/session-worker.ts",
  },
  format: "esm",
  dts: { entry: { index: "src/index.ts", "cli/main": "src/cli/main.ts" } },
  clean: true,
  sourcemap: true,
  target: "node20",
});
