import { SandboxProtocolError } from "@atrium/kit";
import { describe, expect, it } from "vitest";
import { MAX_TAPE_VALUES } from "./run-tape.js";
import { checkMemory, checkRunResult, checkToolCall } from "./worker-message-checks.js";

const limits = { maxTransferChars: 100, maxOutputChars: 50, maxErrorChars: 20, maxCodeChars: 30 };
const ok = { outputJson: "1", isFinalAnswer: false, logs: "", stoppedByHost: false, durationMs: 3 };

function failure(check: () => unknown): string {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(SandboxProtocolError);
    return (error as Error).message;
  }
  throw new Error("the check passed");
}

describe("checks of what the sandbox worker sends", () => {
  it("passes a well-formed run result through unchanged", () => {
    const result = { ...ok, error: { kind: "runtime", name: "Error", message: "x", line: 2, lineText: "y" } };
    expect(checkRunResult(result, limits)).toBe(result);
  });

  it("refuses forged error fields", () => {
    const bad = (error: object) => failure(() => checkRunResult({ ...ok, error }, limits));
    expect(bad({ kind: "admin", name: "E", message: "m" })).toBe("error: unknown kind");
    expect(bad({ kind: "tool", name: 12345, message: "m" })).toBe("error name is not a string");
    expect(bad({ kind: "tool", name: "E", message: 67890 })).toBe("error message is not a string");
    expect(bad({ kind: "tool", name: "E", message: "m", line: 0 })).toBe(
      "error: line is not a positive integer",
    );
    expect(bad({ kind: "tool", name: "E", message: "m", line: 1.5 })).toBe(
      "error: line is not a positive integer",
    );
    expect(bad({ kind: "tool", name: "E", message: "m", stateLost: "yes" })).toBe(
      "stateLost is not a boolean",
    );
  });

  it("takes a step's tape only when it was asked for, bounded and in range", () => {
    const tape = { random: [0.5], now: [1_764_000_000_000], complete: true };
    expect(checkRunResult({ ...ok, tape }, limits, true)).toEqual({ ...ok, tape });
    const bad = (value: unknown, taped = true) =>
      failure(() => checkRunResult({ ...ok, tape: value }, limits, taped));
    expect(bad(tape, false)).toBe("run result: a tape for a step that recorded none");
    expect(bad(undefined)).toBe("run result: the step's tape is not an object");
    expect(bad({ random: [], complete: true })).toBe(
      "run result: the step's tape has no random and now lists",
    );
    expect(bad({ random: [], now: [], complete: 1 })).toBe(
      "run result: the step's tape does not say whether it is complete",
    );
    expect(bad({ random: [1], now: [], complete: true })).toBe(
      "run result: the step's tape has a random value outside [0, 1)",
    );
    expect(bad({ random: [], now: [1.5], complete: true })).toBe(
      "run result: the step's tape has a clock value that is not a time in ms",
    );
    expect(bad({ random: new Array(MAX_TAPE_VALUES).fill(0), now: [0], complete: false })).toBe(
      `run result: the step's tape holds more than ${MAX_TAPE_VALUES} values`,
    );
  });

  it("refuses sizes past the limits", () => {
    expect(failure(() => checkRunResult({ ...ok, outputJson: "1".repeat(101) }, limits))).toBe(
      "outputJson is 101 characters; at most 100 may cross",
    );
    expect(failure(() => checkRunResult({ ...ok, logs: "x".repeat(1_051) }, limits))).toBe(
      "logs is 1051 characters; at most 1050 may cross",
    );
    const long = { kind: "runtime", name: "E", message: "m".repeat(1_021) };
    expect(failure(() => checkRunResult({ ...ok, error: long }, limits))).toBe(
      "error message is 1021 characters; at most 1020 may cross",
    );
  });

  it("refuses results of the wrong shape", () => {
    expect(failure(() => checkRunResult(null, limits))).toBe("run result is not an object");
    expect(failure(() => checkRunResult({ ...ok, logs: undefined }, limits))).toBe("logs is not a string");
    expect(failure(() => checkRunResult({ ...ok, durationMs: -1 }, limits))).toBe(
      "run result: durationMs is not a duration",
    );
    expect(failure(() => checkMemory({ usedBytes: "1", wasmBytes: 2 }))).toBe(
      "memory: byte counts are not integers",
    );
    expect(checkMemory({ usedBytes: 1, wasmBytes: 2 })).toEqual({ usedBytes: 1, wasmBytes: 2 });
  });

  it("checks tool calls", () => {
    const call = { type: "tool-call", runId: 1, callId: "call_1_1", name: "add", json: "{}" } as const;
    expect(checkToolCall(call, limits)).toBeUndefined();
    expect(failure(() => checkToolCall({ ...call, json: "x".repeat(101) }, limits))).toBe(
      "tool input is 101 characters; at most 100 may cross",
    );
    expect(failure(() => checkToolCall({ ...call, runId: Number.NaN }, limits))).toBe(
      "tool call: runId is not an integer",
    );
  });
});
