import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LIMIT_FILES, unusedLimits } from "./unused-limits.ts";

const here = dirname(fileURLToPath(import.meta.url));
const packagesDir = join(here, "..", "..", "packages");

// Every package that has a limits or tuning module, found on disk so new packages are covered.
const packages = readdirSync(packagesDir)
  .filter((name) => LIMIT_FILES.some((file) => existsSync(join(packagesDir, name, file))))
  .sort();

describe("every declared limit and tuning value is used by its package", () => {
  it("finds the packages to check", () => {
    expect(packages).toEqual(expect.arrayContaining(["agent", "chroma", "chromafs", "mcp"]));
  });

  it.each(packages)("@atrium/%s uses all of its limits and tuning values", (name) => {
    expect(unusedLimits(join(packagesDir, name))).toEqual([]);
  });
});

describe("the unused-limit check", () => {
  it("reports exactly the unused names of a fixture package, ignoring comments, strings and tests", () => {
    expect(unusedLimits(join(here, "..", "fixtures", "limits-unused"))).toEqual([
      { file: "src/limits.ts", name: "maxUnusedBytes" },
      { file: "src/limits.ts", name: "resolveToyLimits" },
      { file: "src/tuning.ts", name: "TOY_UNUSED_THRESHOLD" },
    ]);
  });
});
