import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { runCli } from "@atrium/kit/cli";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_CHROMAFS_LIMITS } from "../limits.js";
import { docsCli } from "./docs-cli.js";
import { shCommand } from "./sh-command.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-sh-limit-"));
writeFileSync(join(dir, "page.md"), `# Page\n\n${"0123456789".repeat(10)}\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sh(argv: string[], stdin: string, maxShellOutputBytes?: number) {
  let stdout = "";
  let stderr = "";
  const io = {
    stdin: Readable.from([stdin]),
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
  };
  const exitCode = await runCli(
    docsCli([shCommand({ maxShellOutputBytes })]),
    ["sh", "--dir", dir, ...argv],
    io,
  );
  return { stdout, stderr, exitCode };
}

describe("atrium-docs sh cuts each command's output at maxShellOutputBytes", () => {
  it("keeps output under the limit whole (the default is 8 MiB)", async () => {
    expect(DEFAULT_CHROMAFS_LIMITS.maxShellOutputBytes).toBe(8 * 1024 * 1024);
    expect(await sh(["-c", "head -1 /page.md"], "")).toEqual({ stdout: "# Page\n", stderr: "", exitCode: 0 });
  });

  it("cuts stdout of -c with a note naming the full size", async () => {
    expect(await sh(["-c", "cat /page.md"], "", 20)).toEqual({
      stdout:
        "# Page\n\n012345678901\n[output truncated: 109 bytes, showing the first 20; narrow the command (head, grep -m, wc)]\n",
      stderr: "",
      exitCode: 0,
    });
  });

  it("cuts per command in the read loop, stderr too, and the shell goes on", async () => {
    const result = await sh([], "cat /page.md\ncat /missing-page-with-a-long-name.md\necho ok\n", 20);
    expect(result).toEqual({
      stdout:
        "# Page\n\n012345678901\n[output truncated: 109 bytes, showing the first 20; narrow the command (head, grep -m, wc)]\n" +
        "ok\n",
      stderr:
        "cat: /missing-page-w\n[output truncated: 66 bytes, showing the first 20; narrow the command (head, grep -m, wc)]\n",
      exitCode: 0,
    });
  });

  it("refuses a limit that is not a positive integer", async () => {
    await expect(sh(["-c", "true"], "", 0.5)).rejects.toThrow(
      "@atrium/chromafs limit maxShellOutputBytes must be a positive integer, got 0.5",
    );
  });
});
