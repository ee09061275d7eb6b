import { copyFile, mkdir } from "node:fs/promises";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", "cli/main": "src/cli/main.ts" },
  format: "esm",
  // The declarations name Node's types (streams, child processes, `NodeJS.*`, and
  // `AsyncDisposable` below an ESNext lib, which @types/node declares): this line makes a user's
  // tsc load @types/node for them even when their tsconfig lists no `types` (TypeScript 6's and
  // 7's default, so `tsc --init`'s), instead of TS2503 "Cannot find namespace 'NodeJS'".
  dts: { entry: { index: "src/index.ts" }, banner: '/// <reference types="node" />' },
  clean: true,
  sourcemap: true,
  target: "node20",
  // The executor's guest harness ships as a file (guest-repl.ts reads it from dist/harness/).
  async onSuccess() {
    await mkdir("dist/harness", { recursive: true });
    await copyFile("src/executor/guest-harness.py", "dist/harness/guest-harness.py");
  },
});
