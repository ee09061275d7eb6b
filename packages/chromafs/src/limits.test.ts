import { ConfigError } from "@atrium/spec";
import { describe, expect, it } from "vitest";
import { docsBashTool } from "./agent/docs-bash-tool.js";
import { TreeCache } from "./fs/tree-cache.js";
import { DEFAULT_CHROMAFS_LIMITS, resolveChromafsLimits } from "./limits.js";
import { pageSearchWork, sessionExecutionLimits } from "./session/docs-session.js";
import { LocalFolderStore } from "./store/local-folder-store.js";

describe("chromafs limits", () => {
  it("resolves to the frozen defaults, which pass their own checks", () => {
    expect(resolveChromafsLimits()).toEqual(DEFAULT_CHROMAFS_LIMITS);
    expect(resolveChromafsLimits(DEFAULT_CHROMAFS_LIMITS)).toEqual(DEFAULT_CHROMAFS_LIMITS);
    expect(Object.isFrozen(DEFAULT_CHROMAFS_LIMITS)).toBe(true);
  });

  it("gives just-bash a session's execution limits, the command timeout included", () => {
    expect(sessionExecutionLimits(resolveChromafsLimits({ commandTimeoutMs: 5_000 }))).toEqual({
      maxCommandCount: 10_000,
      // grep's work on the largest page: 2 × 50,000 lines + 4,096 KiB + 1.
      maxLoopIterations: 104_097,
      maxArrayElements: 1_000_000,
      maxOutputSize: 16 * 1024 * 1024,
      maxExecutionTimeMs: 5_000,
      maxFileSystemBytes: 64 * 1024 * 1024,
    });
  });

  it("never gives a session less than the largest page needs, whatever the session limits say", () => {
    const limits = resolveChromafsLimits({
      maxSessionLoopIterations: 10,
      maxSessionOutputBytes: 1_000,
      maxPageBytes: 64 * 1024 * 1024,
      maxPageLines: 2_000_000,
    });
    expect(pageSearchWork(limits)).toBe(4_065_537);
    expect(sessionExecutionLimits(limits)).toMatchObject({
      maxLoopIterations: 4_065_537,
      maxArrayElements: 4_065_537,
      maxOutputSize: 64 * 1024 * 1024,
    });
    // A page ingest accepts is printed whole by atrium-docs sh too.
    expect(DEFAULT_CHROMAFS_LIMITS.maxShellOutputBytes).toBeGreaterThanOrEqual(
      DEFAULT_CHROMAFS_LIMITS.maxPageBytes,
    );
  });

  it("checks the options that override a limit", () => {
    const session = async () => {
      throw new Error("never opened");
    };
    expect(() => docsBashTool(session, { maxOutputBytes: -5 })).toThrow(
      new ConfigError("@atrium/chromafs limit maxToolOutputBytes must be a positive integer, got -5"),
    );
    expect(() => docsBashTool(session, { timeoutMs: Number.NaN })).toThrow(
      new ConfigError(
        "@atrium/chromafs limit commandTimeoutMs must be a positive finite number of milliseconds, got NaN",
      ),
    );
    expect(() => new TreeCache(new LocalFolderStore("/nonexistent"), 0)).toThrow(
      new ConfigError("@atrium/chromafs limit maxSharedPageCacheBytes must be a positive integer, got 0"),
    );
  });
});
