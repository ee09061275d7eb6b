import { defaultServerConditions } from "vite";
import { defineConfig, type ViteUserConfig } from "vitest/config";
import { TestSummaryReporter } from "./test-summary-reporter.ts";

type TestOptions = NonNullable<ViteUserConfig["test"]>;

/**
 * The one vitest set-up every package uses. Tests run against sources: the "source" export
 * condition points workspace packages at their src/, so `pnpm test` needs no build first.
 */
export function atriumVitestConfig(test: TestOptions = {}) {
  // Vitest hands these to its workers as `node --conditions`; with "module" among them Node
  // loads @opentelemetry/api (under the AI SDK) from a build it cannot resolve, so it is left out.
  const conditions = [
    "@atrium/source",
    ...defaultServerConditions.filter((condition) => condition !== "module"),
  ];
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      // The summary feeds the closing lines of `npm test` (.ci/run-tests.mjs).
      reporters: ["default", new TestSummaryReporter(".vitest/summary.json")],
      testTimeout: 30_000,
      hookTimeout: 60_000,
      ...test,
    },
  });
}
