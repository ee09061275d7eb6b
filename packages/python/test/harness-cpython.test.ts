import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The Pyodide harness is a Python file (src/harness/harness.py), so Python's own tools reach it:
// the host's CPython compiles it and runs unit tests of its pure parts (the static guard, the
// parser-depth check). Its sandbox behaviour is python-security.test.ts's business.
const harness = fileURLToPath(new URL("../src/harness/harness.py", import.meta.url));
const checks = fileURLToPath(new URL("./cpython/harness_checks.py", import.meta.url));
const hasPython3 = spawnSync("python3", ["--version"]).status === 0;
const scratch = mkdtempSync(join(tmpdir(), "atrium-harness-pyc-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function python3(...args: string[]) {
  const run = spawnSync("python3", ["-I", ...args], { encoding: "utf8", timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

// Under CI the host has python3 (Debian's), and its absence must fail rather than skip.
describe.skipIf(!hasPython3 && process.env.CI !== "true")(
  "the Pyodide harness under the host's CPython",
  () => {
    it("compiles (py_compile)", () => {
      const compiled = python3(
        "-c",
        "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
        harness,
        join(scratch, "harness.pyc"),
      );
      expect(compiled).toEqual({ status: 0, output: "" });
    });

    it("passes the unit tests of its pure parts", () => {
      const tested = python3(checks, harness);
      expect(tested.output).toMatch(/\nOK\n?$/);
      expect(tested.status).toBe(0);
    });
  },
);
