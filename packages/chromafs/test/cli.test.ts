import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SmallDocsDir, writeSmallDocs } from "./fixtures/small-docs.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** The real CLI in a child process (sources through tsx, as `pnpm test` runs everything). */
function atriumDocs(args: string[], input?: string) {
  const result = spawnSync(
    process.execPath,
    ["--conditions=@atrium/source", "--import", "tsx", "src/cli/main.ts", ...args],
    {
      cwd: PACKAGE_DIR,
      input,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, ATRIUM_CHROMA_URL: "", ATRIUM_CHROMA_PATH: "" },
    },
  );
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.status };
}

describe("atrium-docs sh", () => {
  let dir: SmallDocsDir;
  beforeAll(() => {
    dir = writeSmallDocs();
  });
  afterAll(() => dir.remove());

  it("-c prints exactly what the command prints and exits with its code", () => {
    expect(
      atriumDocs([
        "sh",
        "--dir",
        dir.root,
        "--groups",
        "staff",
        "-c",
        "grep -rl Falcon / ; cat /secret/plans.md",
      ]),
    ).toEqual({
      stdout: "/internal/roadmap.md\n",
      stderr: "cat: /secret/plans.md: No such file or directory\n",
      exitCode: 1,
    });
  });

  it("reads commands line by line from stdin, keeping the directory", () => {
    expect(atriumDocs(["sh", "--dir", dir.root], "cd /guides\nls\nhead -1 deploy.md\n")).toEqual({
      stdout: "deploy.md\nquickstart.md\n# Deploy\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("names an unreachable Chroma URL and a missing location", () => {
    const unreachable = atriumDocs([
      "sh",
      "--collection",
      "docs",
      "--chroma-url",
      "http://127.0.0.1:9",
      "-c",
      "ls",
    ]);
    expect(unreachable.exitCode).toBe(2);
    expect(unreachable.stdout).toBe("");
    expect(unreachable.stderr).toContain("No Chroma server answers at http://127.0.0.1:9");
    expect(atriumDocs(["sh", "--collection", "docs", "-c", "ls"])).toEqual({
      stdout: "",
      stderr:
        "atrium-docs sh: say where Chroma is: --chroma-url <url> or --path <data dir> (or set ATRIUM_CHROMA_URL / ATRIUM_CHROMA_PATH)\n",
      exitCode: 2,
    });
  });
});
