// Where the OS sandbox cannot start, the Python executor refuses to start and says what is
// missing, unless the caller asks for the in-thread mode by name. Support is found by starting
// the sandbox: here bubblewrap is a stand-in that fails the way it does in a container without
// user namespaces.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OsSandboxUnavailableError } from "@atrium/kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drainPythonWorkers, PythonExecutor, setWarmPythonWorkers } from "../src/index.js";

let dir: string;
const saved = process.env.ATRIUM_BWRAP;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "atrium-no-userns-"));
  const fake = join(dir, "bwrap");
  writeFileSync(
    fake,
    "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n",
  );
  chmodSync(fake, 0o755);
  process.env.ATRIUM_BWRAP = fake;
  setWarmPythonWorkers(0);
});

afterAll(async () => {
  if (saved === undefined) delete process.env.ATRIUM_BWRAP;
  else process.env.ATRIUM_BWRAP = saved;
  await drainPythonWorkers();
  rmSync(dir, { recursive: true, force: true });
});

describe("a host where the OS sandbox cannot start", () => {
  it("refuses to create a Python executor, naming the failure, the fix and the opt-out", async () => {
    const error = await PythonExecutor.create().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(OsSandboxUnavailableError);
    expect((error as Error).message).toBe(
      'PythonExecutor: the OS sandbox did not start (bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.); install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap) on Linux with user namespaces enabled; or pass isolation: "wasm" to run Python in a worker thread of this process, behind language-level guards only',
    );
  }, 60_000);

  it('runs in-thread only when asked by name (isolation: "wasm"), and says so in its capabilities', async () => {
    const executor = await PythonExecutor.create({ isolation: "wasm" });
    try {
      expect(executor.capabilities.isolation).toBe("wasm");
      expect((await executor.run("6 * 7")).output).toBe(42);
    } finally {
      await executor.close();
    }
  }, 60_000);

  it("names a bubblewrap path that does not exist", async () => {
    process.env.ATRIUM_BWRAP = join(dir, "missing-bwrap");
    const error = await PythonExecutor.create().catch((thrown: unknown) => thrown);
    expect((error as Error).message).toBe(
      `PythonExecutor: ATRIUM_BWRAP names ${join(dir, "missing-bwrap")}, which is not an executable file; fix it, or unset it to use bwrap from PATH; or pass isolation: "wasm" to run Python in a worker thread of this process, behind language-level guards only`,
    );
  }, 60_000);
});
