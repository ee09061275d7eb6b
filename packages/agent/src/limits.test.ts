import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { CodeAgent } from "./agents/index.js";
import { QuickJsExecutor } from "./executors/index.js";
import {
  DEFAULT_AGENT_LOOP_LIMITS,
  DEFAULT_MODEL_LIMITS,
  DEFAULT_QUICKJS_LIMITS,
  resolveAgentLoopLimits,
  resolveModelLimits,
  resolveQuickJsLimits,
} from "./limits.js";
import { ScriptedModel } from "./models/index.js";

describe("agent limits", () => {
  it("each area resolves to its frozen defaults, which pass their own checks", () => {
    for (const [resolve, defaults] of [
      [resolveQuickJsLimits, DEFAULT_QUICKJS_LIMITS],
      [resolveAgentLoopLimits, DEFAULT_AGENT_LOOP_LIMITS],
      [resolveModelLimits, DEFAULT_MODEL_LIMITS],
    ] as const) {
      expect(Object.isFrozen(defaults)).toBe(true);
      expect((resolve as (partial?: object) => object)()).toEqual(defaults);
      expect((resolve as (partial?: object) => object)(defaults)).toEqual(defaults);
    }
  });

  it("overrides only the fields given, and refuses a bad or unknown field by name", () => {
    expect(resolveQuickJsLimits({ maxToolCalls: 3, timeoutMs: undefined })).toEqual({
      ...DEFAULT_QUICKJS_LIMITS,
      maxToolCalls: 3,
    });
    expect(() => resolveAgentLoopLimits({ maxSteps: 2.5 })).toThrow(
      new ConfigError("@atrium/agent limit maxSteps must be a positive integer, got 2.5"),
    );
    expect(() => resolveModelLimits({ requestTimeoutMs: -1 })).toThrow(
      new ConfigError(
        "@atrium/agent limit requestTimeoutMs must be a positive finite number of milliseconds, got -1",
      ),
    );
    expect(() => resolveQuickJsLimits({ maxTimers: 5 } as object)).toThrow(
      new ConfigError(
        '@atrium/agent has no limit "maxTimers"; known limits: timeoutMs, stopGraceMs, watchdogGraceMs, maxTransferChars, maxOutputChars, maxErrorChars, maxMemoryBytes, maxStackBytes, maxPrintedChars, maxToolCalls, maxJobs, maxCodeChars, maxStepTransferChars, cleanupMs',
      ),
    );
  });

  it("QuickJsExecutor takes its limits as options, checked before a worker is taken", async () => {
    await expect(QuickJsExecutor.create({ maxMemoryBytes: 0 })).rejects.toThrow(
      new ConfigError("@atrium/agent limit maxMemoryBytes must be a positive integer, got 0"),
    );
    await expect(QuickJsExecutor.create({ stopGraceMs: Number.NaN })).rejects.toThrow(
      new ConfigError(
        "@atrium/agent limit stopGraceMs must be a positive finite number of milliseconds, got NaN",
      ),
    );
  });

  it("CodeAgent checks its step timeout through the loop's limits", () => {
    expect(() => new CodeAgent({ model: new ScriptedModel([]), stepTimeoutMs: 0 })).toThrow(
      new ConfigError(
        "@atrium/agent limit stepTimeoutMs must be a positive finite number of milliseconds, got 0",
      ),
    );
  });
});
