// A process that drains the pool while a successor sandbox is still booting must wait for it and
// exit normally. Booting sandboxes do not keep a process alive on their own, so draining must:
// the demo exited 13 (a top-level await that never settled) after a Python question.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("drainPythonWorkers", () => {
  it("waits for a sandbox still booting, and the process exits 0", () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-drain-"));
    try {
      const script = join(dir, "drain.mts");
      writeFileSync(
        script,
        [
          `import { drainPythonWorkers, PythonExecutor } from ${JSON.stringify(join(packageDir, "src", "index.ts"))};`,
          "const executor = await PythonExecutor.create();",
          "await executor.close();",
          // The pool boots the successor 100 ms after handing a sandbox out: drain mid-boot.
          "await new Promise((resolve) => setTimeout(resolve, 300));",
          "await drainPythonWorkers();",
          'console.log("drained");',
        ].join("\n"),
      );
      const result = spawnSync(process.execPath, ["--import", "tsx", "--conditions=@atrium/source", script], {
        cwd: packageDir,
        encoding: "utf8",
        timeout: 90_000,
      });
      expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 0, stdout: "drained\n" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
