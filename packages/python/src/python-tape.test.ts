import { SandboxProtocolError } from "@atrium/kit";
import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { harnessTapeRequest, MAX_TAPE_VALUES, recordedTape } from "./python-tape.js";

// The checks of the tape a replay brings (a saved file) and of the one the sandbox reports
// (guest code runs there); the tape through the harness is test/python-tape.test.ts's.

describe("harnessTapeRequest", () => {
  it("picks a new seed when there is nothing to replay", () => {
    const request = harnessTapeRequest(undefined);
    expect(request).toEqual({ seed: request.seed, clocks: {}, maxValues: MAX_TAPE_VALUES });
    expect(Number.isSafeInteger(request.seed) && request.seed >= 0).toBe(true);
  });

  it("carries a replay's seed and clock values", () => {
    const replay = { seed: 42, clocks: { time: [1.5], time_ns: ["12"] }, complete: true };
    expect(harnessTapeRequest(replay)).toEqual({
      seed: 42,
      clocks: { time: [1.5], time_ns: ["12"] },
      maxValues: MAX_TAPE_VALUES,
    });
  });

  it.each([
    [null, "is not an object { seed, clocks, complete }"],
    [{ seed: -1, clocks: {}, complete: true }, "has no seed (a non-negative integer)"],
    [{ seed: 1, clocks: {}, complete: "yes" }, "does not say whether it is complete"],
    [{ seed: 1, clocks: { clock: [1] }, complete: true }, "names a clock it does not tape (clock)"],
    [
      { seed: 1, clocks: { time: ["1"] }, complete: true },
      "has a value of clock time that is not a finite number",
    ],
    [
      { seed: 1, clocks: { time_ns: [1] }, complete: true },
      "has a value of clock time_ns that is not integer text",
    ],
    [
      { seed: 1, clocks: { time: new Array(MAX_TAPE_VALUES + 1).fill(1) }, complete: true },
      `holds more than ${MAX_TAPE_VALUES} clock values`,
    ],
  ])("refuses %j", (replay, why) => {
    expect(() => harnessTapeRequest(replay)).toThrow(
      new ConfigError(`PythonExecutor: the replay tape ${why}`),
    );
  });
});

describe("recordedTape", () => {
  const request = { seed: 9, clocks: {}, maxValues: MAX_TAPE_VALUES };

  it("is the request's seed with the clocks the harness reported", () => {
    expect(recordedTape(request, { clocks: { monotonic: [3] }, complete: true })).toEqual({
      seed: 9,
      clocks: { monotonic: [3] },
      complete: true,
    });
  });

  it.each([
    [undefined, "it reported a step's tape that is not { clocks, complete }"],
    [{ clocks: {} }, "it reported a step's tape that is not { clocks, complete }"],
    [{ clocks: [], complete: true }, "it reported a step's tape that has no clocks object"],
    [
      { clocks: { perf_counter: new Array(MAX_TAPE_VALUES + 1).fill(0) }, complete: false },
      `it reported a step's tape that holds more than ${MAX_TAPE_VALUES} clock values`,
    ],
  ])("ends a sandbox that reports %j", (report, message) => {
    expect(() => recordedTape(request, report)).toThrow(new SandboxProtocolError(message));
  });
});
