import { describe, expect, it } from "vitest";
import { closedPortUrl } from "../test/server-helpers.js";
import { connectChroma } from "./connect-chroma.js";
import { ChromaUnreachableError } from "./errors.js";

describe("connectChroma", () => {
  it("names the URL and how to start a server when nothing answers", async () => {
    const url = await closedPortUrl();
    const error = await connectChroma(url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ChromaUnreachableError);
    expect(error).toMatchObject({ code: "UNAVAILABLE", url, isRetryable: true });
    expect((error as Error).message).toContain(
      `No Chroma server answers at ${url} (GET /api/v2/heartbeat failed)`,
    );
    expect((error as Error).message).toContain("startChromaServer({ path })");
  });

  it("rejects what is not an http(s) URL", async () => {
    await expect(connectChroma("localhost:8000")).rejects.toThrow("the scheme must be http or https");
    await expect(connectChroma("not a url")).rejects.toThrow('Invalid Chroma URL "not a url"');
    await expect(connectChroma("https://proxy.example/chroma")).rejects.toThrow(
      "Invalid Chroma URL https://proxy.example/chroma: give the server's root (https://proxy.example); a path or query is not supported",
    );
  });
});
