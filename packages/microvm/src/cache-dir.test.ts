// buildOnce under concurrent first starts (issue 26, item 1): two processes (or two calls in one)
// that build the same cache entry at once must both succeed with one entry and no temporaries.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildOnce } from "./cache-dir.js";

describe("buildOnce", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "atrium-build-once-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lets concurrent builds of one directory all succeed, the first one's result standing", async () => {
    const target = join(dir, "images", "layout");
    // Each build writes a directory (a rootfs layout, an image) and takes its time.
    const build = (n: number) => (tmp: string) =>
      (async () => {
        await mkdir(join(tmp, "bin"), { recursive: true });
        await writeFile(join(tmp, "bin", "sh"), `built by ${n}`);
        await new Promise((resolve) => setTimeout(resolve, 20 * n));
      })();
    const results = await Promise.all([1, 2, 3, 4].map((n) => buildOnce(target, build(n))));
    expect(results).toEqual([target, target, target, target]);
    expect(await readFile(join(target, "bin", "sh"), "utf8")).toBe("built by 1");
    expect(await readdir(join(dir, "images"))).toEqual(["layout"]);
  });

  it("removes the temporary of a failed build and reports the failure", async () => {
    const target = join(dir, "agent");
    await expect(
      buildOnce(target, async (tmp) => {
        await writeFile(tmp, "half");
        throw new Error("the compiler failed");
      }),
    ).rejects.toThrow("the compiler failed");
    expect(await readdir(dir)).toEqual([]);
  });
});
