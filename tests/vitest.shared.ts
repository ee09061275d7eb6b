import { defaultServerConditions } from "vite";
import { defineConfig, type ViteUserConfig } from "vitest/config";
import { TestSummaryReporter } from "./test-summary-reporter.ts";
import { builtPackagesPlugin, installedProject, SOURCE_CONDITION, testTarget } from "./test-target.ts";

type TestOptions = NonNullable<ViteUserConfig["test"]>;

/**
 * The one vitest set-up every package uses. Tests run against sources: the "source" export
 * condition points workspace packages at their src/, so `pnpm test` needs no build first. Under
 * ATRIUM_TEST_TARGET=dist (the built pass, see test-target.ts) the condition is dropped and the
 * packages' entry points are the installed tarballs' built files.
 */
export function atriumVitestConfig(test: TestOptions = {}) {
  const dist = testTarget() === "dist";
  // Vitest hands these to its workers as `node --conditions`; with "module" among them Node
  // loads @opentelemetry/api (under the AI SDK) from a build it cannot resolve, so it is left out.
  const conditions = [
    ...(dist ? [] : [SOURCE_CONDITION]),
    ...defaultServerConditions.filter((condition) => condition !== "module"),
  ];
  return defineConfig({
    plugins: dist ? [builtPackagesPlugin(installedProject())] : [],
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
