import { describe, expect, it } from "vitest";
import { probeOsSandbox } from "../src/index.js";

describe("probeOsSandbox", () => {
  it("starts the sandbox here (bubblewrap is installed by the set-up)", async () => {
    const report = await probeOsSandbox();
    expect(report).toMatchObject({ ok: true });
  });
});
