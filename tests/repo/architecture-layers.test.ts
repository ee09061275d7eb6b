import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { layerProblems, packagesWithLayers, parseLayers } from "./architecture-layers.ts";

const here = dirname(fileURLToPath(import.meta.url));
const packagesDir = join(here, "..", "..", "packages");
const packages = packagesWithLayers(packagesDir);

describe("each package's code obeys the layers its ARCHITECTURE.md states", () => {
  it("finds the packages that state their layers", () => {
    expect(packages).toEqual(expect.arrayContaining(["agent", "kit", "python"]));
  });

  it.each(packages)("@atrium/%s: every src/ entry in one layer, no import going up", (name) => {
    expect(layerProblems(join(packagesDir, name))).toEqual([]);
  });
});

describe("the layer list", () => {
  it("reads numbered lines of backticked names after the heading, up to the first other line", () => {
    const markdown =
      "# X\n\n## Layers\n1. `errors.ts`, `limits.ts`\n2. `some-folder/`\n3. `index.ts`\n\nOne line per folder.\n4. `not-a-layer/`\n";
    expect(parseLayers(markdown)).toEqual([["errors.ts", "limits.ts"], ["some-folder/"], ["index.ts"]]);
  });
});
