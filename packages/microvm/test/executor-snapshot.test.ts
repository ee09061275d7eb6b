import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Tool } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MicroVmExecutor, WarmPool } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

/** A fixture in its own node process (sources through tsx), with its stdout and exit code. */
function runFixture(args: string[]): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const script = fileURLToPath(new URL("./fixtures/tool-call-snapshot.ts", import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@atrium/source", "--import", "tsx", script, ...args],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
  });
}

describe.skipIf(SKIP_VM_SUITES)("MicroVmExecutor snapshots and forks", () => {
  let executor: MicroVmExecutor;
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "atrium-vm-executor-snapshot-"));
    executor = await MicroVmExecutor.create();
    await executor.run("import json\ncounter = 41\nseen = ['boot']");
  }, 240_000);

  afterAll(async () => {
    await executor?.close();
    await rm(work, { recursive: true, force: true });
  });

  it("restores a Python guest with its variables and imports", async () => {
    const path = join(work, "python.snapshot");
    await executor.snapshot(path);
    await executor.run("counter = 0");
    const restored = await MicroVmExecutor.restore(path);
    try {
      expect(restored.waitingToolCalls).toEqual([]);
      const result = await restored.run("seen.append('restored')\njson.dumps([counter, seen])");
      expect(result.error).toBeUndefined();
      expect(result.output).toBe('[41, ["boot", "restored"]]');
    } finally {
      await restored.close();
    }
    expect((await executor.run("counter")).output).toBe(0);
    await executor.run("counter = 41");
  }, 240_000);

  it("forks two continuations of one state that do not see each other", async () => {
    const [a, b] = (await executor.fork(2)) as [MicroVmExecutor, MicroVmExecutor];
    try {
      const [left, right] = await Promise.all([
        a.run("counter += 1\nseen.append('a')\n[counter, seen]"),
        b.run("counter -= 1\nseen.append('b')\n[counter, seen]"),
      ]);
      expect(left.output).toEqual([42, ["boot", "a"]]);
      expect(right.output).toEqual([40, ["boot", "b"]]);
      expect((await executor.run("[counter, seen]")).output).toEqual([41, ["boot"]]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 240_000);

  it("fills a warm pool from an executor's snapshot: each executor it makes has that state and new tools", async () => {
    const path = join(work, "pool.snapshot");
    await executor.snapshot(path);
    const pool = await WarmPool.fromSnapshot(path, { size: 1 });
    try {
      const add: Tool = {
        name: "add",
        description: "Adds a and b.",
        inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
        execute: async (input: { a: number; b: number }) => input.a + input.b,
      };
      for (let round = 0; round < 2; round++) {
        const pooled = await MicroVmExecutor.create({ pool, tools: [add] });
        try {
          const result = await pooled.run("counter = add(counter, 1)\n[counter, seen]");
          expect(result.output).toEqual([42, ["boot"]]);
          expect(pooled.machine.info.restoredFrom).toBe(path);
        } finally {
          await pooled.close();
        }
      }
    } finally {
      await pool.close();
    }
  }, 240_000);

  it("lets another process resume a step that was waiting on a tool call when the first one exited", async () => {
    const path = join(work, "approval.snapshot");
    const paused = await runFixture(["pause", path]);
    expect(paused).toMatchObject({ code: 0, stdout: "snapshotted with state\n" });
    const resumed = await runFixture(["resume", path]);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({
      waiting: [{ name: "approve", args: [], kwargs: { action: "deploy" } }],
      output: "approved deploy at 42",
      final: true,
      error: null,
      next: 41,
    });
  }, 480_000);
});
