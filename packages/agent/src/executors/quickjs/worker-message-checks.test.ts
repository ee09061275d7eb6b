import { SandboxProtocolError } from "@atrium/kit";
import { describe, expect, it } from "vitest";
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
