import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectChroma } from "./connect-chroma.js";
import { asFilterRejected, ChromaFilterRejectedError } from "./errors.js";
import { type ChromaServer, startChromaServer } from "./server/chroma-server.js";

describe("asFilterRejected on a real server's answers", () => {
  let root: string;
  let server: ChromaServer;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "chroma-filter-"));
    server = await startChromaServer({ path: join(root, "data") });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const refusal = async (run: () => Promise<unknown>): Promise<unknown> => {
    try {
      await run();
    } catch (error) {
      return error;
    }
    throw new Error("the call was not refused");
  };

  it("classifies $regex patterns the Rust engine refuses, with the server's reason", async () => {
    const client = await connectChroma(server.url);
    const collection = await client.createCollection({ name: "filters", embeddingFunction: null });
    await collection.add({ ids: ["a"], documents: ["x(y)"], embeddings: [[1, 2]] });
    for (const [pattern, reason] of [
      ["(", "unclosed group"],
      ["a\\1", "backreferences are not supported"],
      ["(?<=a)b", "look-around"],
    ] as const) {
      const error = await refusal(() => collection.get({ whereDocument: { $regex: pattern } }));
      const rejected = asFilterRejected(error);
      expect(rejected).toBeInstanceOf(ChromaFilterRejectedError);
      expect(rejected?.code).toBe("VALIDATION");
      expect(rejected?.isRetryable).toBe(false);
      expect(rejected?.reason).toContain(reason);
      expect(rejected?.message).toMatch(/^Chroma rejected the query filter: Regex syntax err/);
      expect(rejected?.cause).toBe(error);
    }
  }, 60_000);

  it("leaves other failures alone: a missing collection, an unreachable server, plain errors", async () => {
    const client = await connectChroma(server.url);
    const missing = await refusal(() => client.getCollection({ name: "no-such-collection" }));
    expect(asFilterRejected(missing)).toBeUndefined();
    const elsewhere = await refusal(async () => {
      const gone = await connectChroma("http://127.0.0.1:9").catch((error: unknown) => {
        throw error;
      });
      await gone.heartbeat();
    });
    expect(asFilterRejected(elsewhere)).toBeUndefined();
    expect(asFilterRejected(new Error("regex parse error"))).toBeUndefined();
    expect(asFilterRejected("Bad request")).toBeUndefined();
  }, 60_000);
});
