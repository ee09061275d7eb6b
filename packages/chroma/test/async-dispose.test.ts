// `await using` stops a Chroma server this process started, at the end of the block.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startChromaServer } from "../src/index.js";
import { isAlive, makeTempDir, waitForExit } from "./server-helpers.js";

describe("await using", () => {
  it("stops the server: its process is gone", async () => {
    const temp = await makeTempDir("atrium-chroma-dispose-");
    try {
      let pid: number;
      {
        await using server = await startChromaServer({ path: join(temp.dir, "data") });
        pid = server.pid;
        expect(server.owned).toBe(true);
        expect(isAlive(pid)).toBe(true);
      }
      expect(await waitForExit(pid, 5_000)).toBe(true);
    } finally {
      await temp.remove();
    }
  });
});
