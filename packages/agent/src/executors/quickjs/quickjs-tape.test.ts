// A recorded step's tape (run-tape.ts) through the executor, the worker and the prelude, in both
// isolations: what a step records, and a fresh sandbox replaying it to the same values. `recordedRun`
// (tests/recorded-run.ts) sets `run.tape` as the kit's replay driver will.
import { ConfigError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { recordedRun as recordedRunOf } from "../../../../../tests/recorded-run.ts";
import { QuickJsExecutor } from "./quickjs-executor.js";
import { type JsTape, MAX_TAPE_VALUES } from "./run-tape.js";
import { drainSandboxProcesses } from "./sandbox-pools.js";

afterAll(() => drainSandboxProcesses());

const recordedRun = (executor: Parameters<typeof recordedRunOf>[0], code: string, replay?: unknown) =>
  recordedRunOf<JsTape>(executor, code, replay);

const STEP = "const x = Math.random();\nconst t = Date.now();\n[x, t]";

for (const isolation of ["worker", "process"] as const) {
  describe(`the tape, isolation "${isolation}"`, () => {
    it("replays a recorded step in a fresh sandbox to exactly the same values", async () => {
      const first = await QuickJsExecutor.create({ isolation });
      const { result, recorded } = await recordedRun(first, STEP);
      await first.close();
      const [x, t] = result.output as [number, number];
      expect(recorded).toEqual({ random: [x], now: [t], complete: true });

      const second = await QuickJsExecutor.create({ isolation });
      const replayed = await recordedRun(second, STEP, recorded);
      expect(replayed.result.output).toEqual([x, t]);
      expect(replayed.recorded).toEqual(recorded);
      expect((await second.run("[x, t]")).output).toEqual([x, t]);
      await second.close();
    });

    it("gives the replayed values first, to Date.now, new Date() and Date() alike, then live ones", async () => {
      const executor = await QuickJsExecutor.create({ isolation });
      const replay = { random: [0.25], now: [1_000, 2_000, 3_000], complete: true };
      const { result, recorded } = await recordedRun(
        executor,
        "const r = [Math.random(), Date.now(), new Date().getTime(), Date() === new Date(3000).toString()];\n" +
          "const live = [Math.random(), Date.now()];\n" +
          "[...r, live[0] >= 0 && live[0] < 1, live[1] > 1.7e12, new Date(5).getTime()]",
        replay,
      );
      expect(result.output).toEqual([0.25, 1_000, 2_000, true, true, true, 5]);
      const live = (await executor.run("live")).output as [number, number];
      expect(recorded).toEqual({
        random: [0.25, live[0]],
        now: [1_000, 2_000, 3_000, live[1]],
        complete: true,
      });
      await executor.close();
    });
  });
}

describe('the tape (isolation "worker")', () => {
  it("goes through a source the code captured in an earlier, unrecorded step", async () => {
    const executor = await QuickJsExecutor.create();
    await executor.run("const r = Math.random; const n = Date.now; const D = Date;");
    const replay = { random: [0.5], now: [7, 8], complete: true };
    const { result } = await recordedRun(executor, "[r(), n(), new D().getTime()]", replay);
    expect(result.output).toEqual([0.5, 7, 8]);
    await executor.close();
  });

  it("keeps Date what it was: statics, prototype, instanceof, subclasses, arguments", async () => {
    const executor = await QuickJsExecutor.create();
    const { result } = await recordedRun(
      executor,
      "class Later extends Date {}\n" +
        "[Date.prototype.constructor === Date, new Date(0) instanceof Date, Date.name, Date.length, Date.UTC(1970, 0, 2),\n" +
        " new Later().getTime(), new Later(9) instanceof Date, new Date(undefined).getTime(), Object.keys(globalThis).includes('Date')]",
      { random: [], now: [42], complete: true },
    );
    expect(result.output).toEqual([true, true, "Date", 7, 86_400_000, 42, true, null, false]);
    await executor.close();
  });

  it("refuses an incomplete or malformed replay tape before the step runs, and the executor goes on", async () => {
    const executor = await QuickJsExecutor.create();
    const incomplete = recordedRun(executor, "var ran = 1", { random: [], now: [], complete: false });
    await expect(incomplete).rejects.toThrow(ConfigError);
    await expect(incomplete).rejects.toThrow(
      `QuickJsExecutor: the replay tape is incomplete: the recorded step used more than ${MAX_TAPE_VALUES} values, so a replay of it could diverge`,
    );
    await expect(recordedRun(executor, "1", { random: [2], now: [], complete: true })).rejects.toThrow(
      "QuickJsExecutor: the replay tape has a random value outside [0, 1)",
    );
    expect((await executor.run("typeof ran")).output).toBe("undefined");
    await executor.close();
  });

  it("records at most MAX_TAPE_VALUES values; past them the step goes on live, marked incomplete", async () => {
    const executor = await QuickJsExecutor.create();
    const { result, recorded } = await recordedRun(
      executor,
      `let sum = 0;\nfor (let i = 0; i < ${MAX_TAPE_VALUES + 5}; i++) sum += Math.random();\nsum > 0`,
    );
    expect(result.output).toBe(true);
    expect(recorded.complete).toBe(false);
    expect(recorded.random).toHaveLength(MAX_TAPE_VALUES);
    expect(recorded.now).toEqual([]);
    await executor.close();
  });

  it("reports an empty, complete tape for a step that never ran (a syntax error)", async () => {
    const executor = await QuickJsExecutor.create();
    const { result, recorded } = await recordedRun(executor, "let = = 1");
    expect(result.error?.kind).toBe("syntax");
    expect(recorded).toEqual({ random: [], now: [], complete: true });
    await executor.close();
  });
});
