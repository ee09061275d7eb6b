import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@atrium/spec";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_CHROMA_LIMITS, resolveChromaLimits } from "./limits.js";
import { startChromaServer } from "./server/chroma-server.js";

const dir = mkdtempSync(join(tmpdir(), "atrium-chroma-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("chroma limits", () => {
  it("resolves to the frozen defaults, which pass their own checks", () => {
    expect(resolveChromaLimits()).toEqual(DEFAULT_CHROMA_LIMITS);
    expect(resolveChromaLimits(DEFAULT_CHROMA_LIMITS)).toEqual(DEFAULT_CHROMA_LIMITS);
    expect(Object.isFrozen(DEFAULT_CHROMA_LIMITS)).toBe(true);
  });

  it("checks startTimeoutMs before a server is spawned", async () => {
    await expect(startChromaServer({ path: dir, startTimeoutMs: -20 })).rejects.toThrow(
      new ConfigError(
        "@atrium/chroma limit serverStartTimeoutMs must be a positive finite number of milliseconds, got -20",
      ),
    );
  });
});
