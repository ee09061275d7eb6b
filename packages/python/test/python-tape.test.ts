// A recorded step's tape (src/python-tape.ts) through the executor and the harness, in both
// isolations: what a step records, and a fresh interpreter replaying it to the same values.
// `recordedRun` (tests/recorded-run.ts) sets `run.tape` as the kit's replay driver will.
import { ConfigError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { recordedRun as recordedRunOf } from "../../../tests/recorded-run.ts";
import { drainPythonWorkers, PythonExecutor } from "../src/index.js";
import { MAX_TAPE_VALUES, type PythonTape } from "../src/python-tape.js";

afterAll(() => drainPythonWorkers());

const recordedRun = (executor: Parameters<typeof recordedRunOf>[0], code: string, replay?: unknown) =>
  recordedRunOf<PythonTape>(executor, code, replay);

const STEP =
  "import random, time\nx = random.random()\nn = random.randint(1, 10**9)\nt = time.time()\n[x, n, t]";

for (const isolation of ["wasm", "process"] as const) {
  describe(`the tape, isolation "${isolation}"`, () => {
    it("replays a recorded step in a fresh interpreter to exactly the same values", async () => {
      const first = await PythonExecutor.create({ isolation });
      const { result, recorded } = await recordedRun(first, STEP);
      await first.close();
      const [x, n, t] = result.output as [number, number, number];
      expect(recorded).toEqual({ seed: recorded.seed, clocks: { time: [t] }, complete: true });
      expect(Number.isSafeInteger(recorded.seed)).toBe(true);

      const second = await PythonExecutor.create({ isolation });
      const replayed = await recordedRun(second, STEP, recorded);
      expect(replayed.result.output).toEqual([x, n, t]);
      expect(replayed.recorded).toEqual(recorded);
      // The variables are the ones the first run made, too.
      expect((await second.run("[x, n, t]")).output).toEqual([x, n, t]);
      await second.close();
    }, 120_000);

    it("gives the replayed values first, then live ones (steady clocks never run back)", async () => {
      const executor = await PythonExecutor.create({ isolation });
      const replay = {
        seed: 7,
        clocks: { time: [1000.5], monotonic: [5e9], time_ns: ["1733130000123456789"] },
        complete: true,
      };
      const { result, recorded } = await recordedRun(
        executor,
        "import random, time\n" +
          "a = [time.time(), time.time(), time.monotonic(), time.monotonic(), time.time_ns(), random.random(), random.randint(1, 10**9)]\n" +
          "[a[0], a[1] > 1.7e9, a[2], a[3] >= a[2], str(a[4]), a[5], a[6]]",
        replay,
      );
      expect(result.error).toBeUndefined();
      // random.seed(7) as CPython gives it: random() 0.32383276483316237, then randint 161973070.
      expect(result.output).toEqual([
        1000.5,
        true,
        5e9,
        true,
        "1733130000123456789",
        0.32383276483316237,
        161973070,
      ]);
      expect(recorded?.clocks.time?.[0]).toBe(1000.5);
      expect(recorded?.clocks.time_ns).toEqual(["1733130000123456789"]);
      expect(recorded?.clocks.time).toHaveLength(2);
      expect(recorded?.clocks.monotonic).toHaveLength(2);
      await executor.close();
    }, 120_000);
  });
}

describe('the tape\'s limits (isolation "wasm")', () => {
  it("refuses an incomplete replay tape before the step runs, and the executor goes on", async () => {
    const executor = await PythonExecutor.create({ isolation: "wasm" });
    const incomplete = { seed: 1, clocks: {}, complete: false };
    const refused = recordedRun(executor, "ran = 1", incomplete);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(
      `PythonExecutor: the replay tape is incomplete: the recorded step used more than ${MAX_TAPE_VALUES} clock values, so a replay of it could diverge`,
    );
    expect((await executor.run("'ran' in dir()")).output).toBe(false);
    await executor.close();
  }, 120_000);

  it("records at most MAX_TAPE_VALUES clock values; past them the step goes on live, marked incomplete", async () => {
    const executor = await PythonExecutor.create({ isolation: "wasm" });
    const { result, recorded } = await recordedRun(
      executor,
      `import time\nfor _ in range(${MAX_TAPE_VALUES + 5}): t = time.perf_counter()\nt > 0`,
    );
    expect(result.output).toBe(true);
    expect(recorded.complete).toBe(false);
    expect(recorded.clocks.perf_counter).toHaveLength(MAX_TAPE_VALUES);
    await executor.close();
  }, 120_000);
});
