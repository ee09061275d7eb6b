import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { packageFile, packageText, runsFromSource, startWorkerThread, workerEntry } from "../src/index.js";

describe("files a package ships, from source or from its build", () => {
  const dist = mkdtempSync(join(tmpdir(), "kit-package-files-"));
  mkdirSync(join(dist, "cli"));
  writeFileSync(join(dist, "harness.py"), "print('hi')\n");
  writeFileSync(
    join(dist, "worker.js"),
    "import { parentPort } from 'node:worker_threads'; parentPort.postMessage('built');\n",
  );
  const fromIndex = pathToFileURL(join(dist, "index.js")).href;
  const fromCli = pathToFileURL(join(dist, "cli", "main.js")).href;
  const files = { source: "./src-only.py", built: ["./harness.py", "../harness.py"], owner: "Tester" };

  it("tells a TypeScript source from a built file", () => {
    expect(runsFromSource("file:///a/b.ts")).toBe(true);
    expect(runsFromSource("file:///a/b.mts")).toBe(true);
    expect(runsFromSource("file:///a/b.js")).toBe(false);
  });

  it("finds a built file from dist/ and from a folder below it, and reads it", () => {
    expect(packageFile({ ...files, from: fromIndex }).href).toBe(
      pathToFileURL(join(dist, "harness.py")).href,
    );
    expect(packageText({ ...files, from: fromCli })).toBe("print('hi')\n");
  });

  it("names every place it looked when the build lacks the file", () => {
    expect(() => packageFile({ ...files, built: "./gone.py", from: fromIndex })).toThrow(
      `Tester: its file gone.py is missing (looked for ${join(dist, "gone.py")}); the package was built or packed without it`,
    );
  });

  it("from source, a file is the source itself and a worker entry boots tsx first", () => {
    const from = pathToFileURL(join(import.meta.dirname, "here.ts")).href;
    expect(packageFile({ ...files, from }).href).toBe(new URL("./src-only.py", from).href);
    const entry = workerEntry({ from, source: "./worker.ts", built: "./worker.js", owner: "Tester" });
    expect("evalSource" in entry && entry.evalSource).toMatch(/api\.register\(\).*worker\.ts/);
  });

  it("starts a built worker", async () => {
    const worker = startWorkerThread({
      from: fromIndex,
      source: "./worker.ts",
      built: "./worker.js",
      owner: "Tester",
    });
    const said = await new Promise((resolve) => worker.once("message", resolve));
    expect(said).toBe("built");
    await worker.terminate();
  });
});
