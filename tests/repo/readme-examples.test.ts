// Each package README opens with a "Try it offline" example; this runs it as a user would
// (node + tsx, imports by package name) and checks what it prints, so the example never rots.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  expectedOutput,
  MAX_EXAMPLE_LINES,
  offlineExample,
  packagesWithOfflineExample,
  TSC_CHECK,
} from "./readme-offline-example.ts";

const testsDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const packagesDir = join(testsDir, "..", "packages");
// Inside tests/ so the examples' bare imports resolve to the workspace packages (and zod).
const examplesDir = join(testsDir, ".readme-examples");
const tsxLoader = pathToFileURL(
  createRequire(join(packagesDir, "agent", "package.json")).resolve("tsx"),
).href;
const KILL_MS = 110_000;
const offline = packagesWithOfflineExample(packagesDir);

afterAll(() => rmSync(examplesDir, { recursive: true, force: true }));

function run(
  file: string,
  cwd: string,
  args: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // A TypeScript file runs through tsx's loader; a JavaScript one (tsc) as it is.
  const loader = file.endsWith(".mts") ? ["--import", tsxLoader, "--conditions=@atrium/source"] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...loader, file, ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), KILL_MS);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("README offline examples", () => {
  it("finds an offline example in every package's README", () => {
    const packages = readdirSync(packagesDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(offline.map(({ dir }) => dir)).toEqual(packages);
  });

  it.each(offline.map(({ dir }) => dir))(
    "@atrium/%s: the offline section opens with its install line",
    (pkg) => {
      const readme = readFileSync(join(packagesDir, pkg, "README.md"), "utf8");
      const section = readme.split(/^## Try it offline$/m)[1]?.split(/^## /m)[0] ?? "";
      const first = /^```(\w*)\n([^\n]*)/m.exec(section);
      expect(first?.[1]).toBe("sh");
      expect(first?.[2]).toMatch(new RegExp(`^npm i @atrium/${pkg}( |$)`));
    },
  );

  it.each(offline.map(({ dir }) => dir))(
    "@atrium/%s: runs offline, under 20 lines, and prints what it says",
    async (pkg) => {
      const expected = expectedOutput(pkg);
      const code = offlineExample(readFileSync(join(packagesDir, pkg, "README.md"), "utf8"));
      expect(code.trimEnd().split("\n").length).toBeLessThanOrEqual(MAX_EXAMPLE_LINES);
      mkdirSync(examplesDir, { recursive: true });
      const file = join(examplesDir, `${pkg}.mts`);
      writeFileSync(file, code);
      const cwd = mkdtempSync(join(tmpdir(), `atrium-readme-${pkg}-`));
      try {
        expect(await run(file, cwd)).toEqual({ code: 0, stdout: expected, stderr: "" });
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
    // The child is killed at KILL_MS; the test waits that long (a first Pyodide boot takes seconds).
    KILL_MS + 10_000,
  );

  it.each(offline.map(({ dir }) => dir))(
    "@atrium/%s: the offline section gives the tsc command tests/install checks it with",
    (pkg) => {
      const readme = readFileSync(join(packagesDir, pkg, "README.md"), "utf8");
      const section = readme.split(/^## Try it offline$/m)[1]?.split(/^## /m)[0] ?? "";
      expect(section).toContain(TSC_CHECK);
    },
  );

  it("type-check under strict", async () => {
    mkdirSync(examplesDir, { recursive: true });
    for (const { dir: pkg } of offline) {
      const code = offlineExample(readFileSync(join(packagesDir, pkg, "README.md"), "utf8"));
      writeFileSync(join(examplesDir, `${pkg}.mts`), code);
    }
    writeFileSync(
      join(examplesDir, "tsconfig.json"),
      JSON.stringify({ extends: "../../tsconfig.base.json", include: ["*.mts"] }),
    );
    const tsc = createRequire(join(testsDir, "..", "package.json")).resolve("typescript/bin/tsc");
    expect(await run(tsc, examplesDir, ["-p", "tsconfig.json"])).toEqual({ code: 0, stdout: "", stderr: "" });
  }, 120_000); // tsc reads every package's sources: slow when the machine is busy
});
