// Each package README opens with a "Try it offline" example; this runs it as a user would
// (node + tsx, imports by package name) and checks what it prints, so the example never rots.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const testsDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const packagesDir = join(testsDir, "..", "packages");
// Inside tests/ so the examples' bare imports resolve to the workspace packages (and zod).
const examplesDir = join(testsDir, ".readme-examples");
const tsxLoader = pathToFileURL(
  createRequire(join(packagesDir, "agent", "package.json")).resolve("tsx"),
).href;
const KILL_MS = 60_000;
/** The bar for a first example. */
const MAX_LINES = 20;

afterAll(() => rmSync(examplesDir, { recursive: true, force: true }));

const EXPECTED: Record<string, string> = {
  spec: [
    '{"type":"object","properties":{"screen":{"type":"string","enum":["home","settings"]}},"required":["screen"]}',
    '{"type":"atrium.tool-result","value":"home captured","images":[{"type":"image","image":"iVBORw0KGgo=","mediaType":"image/png"}]}',
    "settings is locked",
    "",
  ].join("\n"),
  agent: "Paris, by 6 °C\n",
  mcp: "add 5\n",
  chroma: "[ 'a' ]\n",
  chromafs: "/guides/install.md:3:Run `npm i @atrium/chromafs`.\ninstall.md\n\n",
};

/** The first TypeScript block under the README's "## Try it offline" heading. */
function offlineExample(readme: string): string {
  const section = readme.split(/^## Try it offline$/m)[1];
  if (section === undefined) throw new Error('no "## Try it offline" section');
  // The fence closes on a line of its own: the example may hold ``` inside a string.
  const block = /^```ts\n([\s\S]*?)^```$/m.exec(section.split(/^## /m)[0]!);
  if (!block) throw new Error('no ```ts block in "## Try it offline"');
  return block[1]!;
}

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
  it.each(Object.keys(EXPECTED))(
    "@atrium/%s: runs offline, under 20 lines, and prints what it says",
    async (pkg) => {
      const code = offlineExample(readFileSync(join(packagesDir, pkg, "README.md"), "utf8"));
      expect(code.trimEnd().split("\n").length).toBeLessThanOrEqual(MAX_LINES);
      mkdirSync(examplesDir, { recursive: true });
      const file = join(examplesDir, `${pkg}.mts`);
      writeFileSync(file, code);
      const cwd = mkdtempSync(join(tmpdir(), `atrium-readme-${pkg}-`));
      try {
        expect(await run(file, cwd)).toEqual({ code: 0, stdout: EXPECTED[pkg], stderr: "" });
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  );

  it("type-check under strict", async () => {
    mkdirSync(examplesDir, { recursive: true });
    for (const pkg of Object.keys(EXPECTED)) {
      const code = offlineExample(readFileSync(join(packagesDir, pkg, "README.md"), "utf8"));
      writeFileSync(join(examplesDir, `${pkg}.mts`), code);
    }
    writeFileSync(
      join(examplesDir, "tsconfig.json"),
      JSON.stringify({ extends: "../../tsconfig.base.json", include: ["*.mts"] }),
    );
    const tsc = createRequire(join(testsDir, "..", "package.json")).resolve("typescript/bin/tsc");
    expect(await run(tsc, examplesDir, ["-p", "tsconfig.json"])).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});
