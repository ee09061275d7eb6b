import { outputCutNote } from "@atrium/kit";
import { richToolResult, SecurityError, type Tool } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bootPythonMachine,
  buildDebianPythonImage,
  defaultCacheDir,
  Machine,
  MicroVmExecutor,
  WarmPool,
} from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

const tools: Tool[] = [
  {
    name: "add",
    description: "Adds a and b.",
    inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    execute: async (input: { a: number; b: number }) => input.a + input.b,
  },
  {
    name: "wait_for_abort",
    description: "Resolves only when its call is aborted.",
    inputSchema: { type: "object" },
    execute: (_input: unknown, context: { signal: AbortSignal }) =>
      new Promise((resolve) => context.signal.addEventListener("abort", () => resolve("aborted"))),
  },
  {
    name: "lookup",
    description: "Returns a record with an image.",
    inputSchema: { type: "object", properties: { key: { type: "string" } } },
    execute: async (input: { key: string }) => richToolResult({ key: input.key, found: true }),
  },
  {
    name: "refuse_fatally",
    description: "Fails with an error that must end the run (a security refusal).",
    inputSchema: { type: "object" },
    execute: async () => {
      throw new SecurityError("the host refused this call");
    },
  },
  {
    name: "count",
    description: "Returns a count too big for a JavaScript number, or `size` characters of text.",
    inputSchema: { type: "object", properties: { size: { type: "number" } } },
    execute: async (input: { size?: number }) =>
      input.size ? "x".repeat(input.size) : { atoms: 10n ** 30n },
  },
];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(SKIP_VM_SUITES)("MicroVmExecutor on a shared machine", () => {
  let machine: Machine;
  let executor: MicroVmExecutor;

  beforeAll(async () => {
    machine = await bootPythonMachine();
    executor = await MicroVmExecutor.create({ machine, stopGraceMs: 1_000, watchdogGraceMs: 1_000 });
    await executor.setTools(tools);
  }, 240_000);

  afterAll(async () => {
    await executor?.close();
    await machine?.stop();
  });

  it("declares a VM with the network off, and tools still work through the agent channel", async () => {
    expect(executor.capabilities).toEqual({
      language: "python",
      persistentState: true,
      tools: true,
      isolation: "vm",
      network: "none",
      snapshots: true,
    });
    const result = await executor.run(
      [
        "import socket",
        "try:",
        '    socket.create_connection(("10.0.2.2", 80), timeout=1)',
        '    reach = "reached"',
        "except OSError as error:",
        "    reach = type(error).__name__",
        "[reach, add(2, 40), lookup('k')]",
      ].join("\n"),
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual(["OSError", 42, { key: "k", found: true }]);
  });

  it("maps positional tool arguments onto the schema and reports a bad call as a tool error", async () => {
    expect((await executor.run("add(1, 2)")).output).toBe(3);
    const result = await executor.run("add(1, 2, 3)");
    expect(result.error).toEqual({
      kind: "tool",
      name: "ToolError",
      message: 'Tool "add" failed: add() takes at most 2 positional arguments (a, b), got 3',
      line: 1,
      lineText: "add(1, 2, 3)",
    });
  });

  it("answers tool values as the other executors do: BigInt as text, a value over maxTransferChars a tool error naming it", async () => {
    expect((await executor.run("count()")).output).toEqual({ atoms: "1000000000000000000000000000000" });
    const result = await executor.run("count(size=5_000_000)");
    expect(result.error).toEqual({
      kind: "tool",
      name: "ToolError",
      message:
        'Tool "count" failed: tool "count" returned 5000002 characters of JSON; the sandbox accepts at most 4194304 (maxTransferChars)',
      line: 1,
      lineText: "count(size=5_000_000)",
    });
  });

  it("has Debian's standard library, extension modules included", async () => {
    const result = await executor.run(
      [
        "import sqlite3, hashlib, ssl, decimal, json, zlib, lzma, bz2, ctypes, datetime",
        "db = sqlite3.connect(':memory:')",
        "[db.execute('select 6 * 7').fetchone()[0], hashlib.sha256(b'a').hexdigest()[:8], str(decimal.Decimal('0.1') * 3)]",
      ].join("\n"),
    );
    expect(result.error).toBeUndefined();
    expect(result.output).toEqual([42, "ca978112", "0.3"]);
  });

  it("an abort during a host tool call ends the tool and the step; the state survives", async () => {
    await executor.run("survivor = 7");
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(executor.run("wait_for_abort()", { signal: controller.signal })).rejects.toMatchObject({
      code: "ABORTED",
    });
    expect((await executor.run("survivor * 6")).output).toBe(42);
  }, 60_000);

  it("a fatal error from a tool ends the run with that error, as in the other executors; the state survives", async () => {
    await executor.run("kept_across = 5");
    await expect(
      executor.run("try:\n    refuse_fatally()\nexcept Exception:\n    caught = True"),
    ).rejects.toMatchObject({ code: "SECURITY", message: "the host refused this call" });
    expect((await executor.run("kept_across * 2")).output).toBe(10);
    expect((await executor.run("'caught' in dir()")).output).toBe(false);
  }, 60_000);

  it("keeps printed output as the other executors do: 20,000 characters, the first and last halves, the rest noted", async () => {
    const result = await executor.run('print("a" * 15_000 + "b" * 15_000)');
    expect(result.error).toBeUndefined();
    expect(result.logs).toBe(`${"a".repeat(10_000)}${outputCutNote(10_001)}${"b".repeat(9_999)}\n`);
  });

  it("returns a value JSON cannot carry as its repr", async () => {
    const result = await executor.run("{1, 2}");
    expect(result.output).toBe("{1, 2}");
  });

  it("kills a step that blocks the guest's own time limit, and starts a fresh interpreter", async () => {
    await executor.run("kept = 1");
    const result = await executor.run(
      "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\nwhile True:\n    pass",
      { timeoutMs: 300 },
    );
    expect(result.error).toEqual({
      kind: "timeout",
      name: "TimeoutError",
      message:
        "the step ran longer than its time limit of 300 ms and did not stop; its interpreter was killed",
      stateLost: true,
    });
    const after = await executor.run("add(a=1, b=1)");
    expect(after.output).toBe(2);
    expect((await executor.run("kept")).error?.message).toBe("name 'kept' is not defined");
  }, 60_000);

  it("reports an interpreter that exits as crashed, with the state lost, and carries on", async () => {
    const result = await executor.run("import os\nos._exit(3)");
    expect(result.error).toEqual({
      kind: "crashed",
      name: "SandboxCrashError",
      message:
        "The sandbox crashed (the Python process in the guest ended (exit code 3)) and was restarted; every variable is lost",
      stateLost: true,
    });
    expect((await executor.run("40 + 2")).output).toBe(42);
  }, 60_000);
});

describe.skipIf(SKIP_VM_SUITES)("MicroVmExecutor fed an endless line", () => {
  it("kills an interpreter that writes a line over maxHarnessLineChars on the harness's channel", async () => {
    const machine = await bootPythonMachine();
    const executor = await MicroVmExecutor.create({ machine, maxHarnessLineChars: 1024 * 1024 });
    try {
      // Written on the harness's own channel (fd 1 of the exec, which the harness keeps for
      // itself), with no newline: the host's line buffer must stop at the limit.
      const result = await executor.run(
        "import os, __main__\nfd = __main__._out.fileno()\nfor _ in range(64):\n    os.write(fd, b'x' * 65536)",
      );
      expect(result.error).toEqual({
        kind: "crashed",
        name: "SandboxCrashError",
        message:
          "The sandbox crashed (the guest wrote a line of over 1048576 characters on the harness's channel (maxHarnessLineChars)) and was restarted; every variable is lost",
        stateLost: true,
      });
      expect((await executor.run("40 + 2")).output).toBe(42);
    } finally {
      await executor.close();
      await machine.stop();
    }
  }, 180_000);
});

describe.skipIf(SKIP_VM_SUITES)("MicroVmExecutor with its own machine", () => {
  it("boots a machine, times its steps, and close leaves no QEMU behind", async () => {
    const started = performance.now();
    const executor = await MicroVmExecutor.create();
    const bootMs = performance.now() - started;
    const pid = executor.machine.info.qemuPid;
    try {
      await executor.setTools(tools);
      const stepMs: number[] = [];
      const toolStepMs: number[] = [];
      for (let i = 0; i < 5; i++) {
        let t = performance.now();
        expect((await executor.run(`${i} + 1`)).output).toBe(i + 1);
        stepMs.push(performance.now() - t);
        t = performance.now();
        expect((await executor.run(`add(a=${i}, b=1)`)).output).toBe(i + 1);
        toolStepMs.push(performance.now() - t);
      }
      const median = (values: number[]) => values.sort((a, b) => a - b)[2]?.toFixed(1);
      console.log(
        `micro-VM executor (${executor.machine.info.accelerator}): create ${bootMs.toFixed(0)} ms (boot ${executor.machine.info.timings.bootMs.toFixed(0)} ms), step ${median(stepMs)} ms, tool step ${median(toolStepMs)} ms (medians of 5)`,
      );
      expect(alive(pid)).toBe(true);
    } finally {
      await executor.close();
    }
    expect(alive(pid)).toBe(false);
    await executor.close();
  }, 240_000);

  it("takes a booted machine from a warm pool: a warm start is the interpreter's start", async () => {
    const image = await buildDebianPythonImage(defaultCacheDir());
    // No refill during the test: a second TCG boot would compete for the cores it measures.
    // The init run of python3 pages its binary and libraries in while the pool boots, not at hand-out.
    const pool = await WarmPool.create(
      { image, memory: 512, init: ["/usr/bin/python3 -I -S -c pass"] },
      { size: 1, refillDelayMs: 600_000 },
    );
    try {
      await pool.whenFull();
      const [pid] = pool.qemuPids();
      const started = performance.now();
      const executor = await MicroVmExecutor.create({ pool });
      const warmMs = performance.now() - started;
      expect(executor.machine.info.qemuPid).toBe(pid);
      expect((await executor.run("6 * 7")).output).toBe(42);
      console.log(`micro-VM executor from a warm pool: ready in ${warmMs.toFixed(0)} ms`);
      await executor.close();
      expect(alive(pid as number)).toBe(false);
    } finally {
      await pool.close();
    }
  }, 240_000);

  it("refuses a machine whose image has no Python, naming the fix", async () => {
    const busybox = await Machine.create({ image: "busybox" });
    try {
      await expect(MicroVmExecutor.create({ machine: busybox })).rejects.toThrow(
        "the machine's image has no /usr/bin/python3 (exec: /usr/bin/python3: No such file or directory); give an image with Python, e.g. buildDebianPythonImage()",
      );
    } finally {
      await busybox.stop();
    }
  }, 240_000);
});
