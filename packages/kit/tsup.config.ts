import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts" },
  format: "esm",
  dts: { entry: { index: "src/index.ts" } },
  clean: true,
  sourcemap: true,
  target: "node20",
  // Only bundles sandbox entries when a package runs from its TypeScript sources (tests).
  external: ["esbuild"],
});
