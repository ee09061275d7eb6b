import { hashingEmbedding } from "@atrium/chroma";
import { afterAll, describe, expect, it } from "vitest";
import { conversationDrafts, TestPalaces } from "../test/test-palaces.js";
import { palaceCore } from "./core/palace-core.js";
import { openPalace } from "./open-palace.js";
import { repairPalace } from "./repair.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

const TURNS: [string, string][] = [
  ["Ana", "The boiler service is booked for Tuesday morning."],
  ["Ben", "Remember to renew the car insurance before June."],
  ["Ana", "The spare key is with the neighbour at number 12."],
];

describe("repair", () => {
  it("restores missing vectors, removes orphans and rebuilds the FTS index", async () => {
    const palace = await palaces.open();
    const filed = await palace.file(conversationDrafts("home", "chat", TURNS));
    const { registry, index } = palaceCore(palace);
    await index.delete([filed[0]!.id]);
    await index.upsert([
      {
        id: "d_orphan",
        embedding: new Array(384).fill(0.05),
        metadata: { wing: "home", room: "x", hall: "y", timestamp_ms: 0 },
      },
    ]);
    registry.lexical.clear();
    expect(await palace.search("boiler", { mode: "bm25" })).toEqual([]);

    expect(await palace.repair()).toEqual({
      replayed: 0,
      vectorsAdded: 1,
      vectorsRemoved: 1,
      lexicalRows: 3,
      reembedded: false,
    });
    expect((await index.ids()).sort()).toEqual(filed.map((result) => result.id).sort());
    expect((await palace.search("boiler", { mode: "bm25" }))[0]?.id).toBe(filed[0]!.id);
    expect((await palace.search("boiler service Tuesday", { mode: "vector" }))[0]?.id).toBe(filed[0]!.id);
    expect(await palace.repair()).toEqual({
      replayed: 0,
      vectorsAdded: 0,
      vectorsRemoved: 0,
      lexicalRows: 3,
      reembedded: false,
    });
  });

  it("replays write-log rows a crash left unapplied when the palace opens", async () => {
    const dir = await palaces.dir();
    const chromaUrl = await palaces.chromaUrl();
    const palace = await openPalace(dir, { create: true, chromaUrl });
    const filed = await palace.file(conversationDrafts("home", "chat", TURNS));
    const { db, index } = palaceCore(palace);
    // As if the process died after the registry commit, before the vectors were written.
    await index.delete(filed.map((result) => result.id));
    db.exec("UPDATE write_log SET applied_to_vectors = 0");
    expect((await palace.status()).pendingVectors).toBe(3);
    await palace.close();
    const reopened = await openPalace(dir, { chromaUrl });
    expect((await reopened.status()).pendingVectors).toBe(0);
    expect((await palaceCore(reopened).index.ids()).sort()).toEqual(filed.map((result) => result.id).sort());
    await reopened.close();
  });

  it("--reembed switches the palace to another embedding", async () => {
    const dir = await palaces.dir();
    const chromaUrl = await palaces.chromaUrl();
    const palace = await openPalace(dir, { create: true, chromaUrl });
    const filed = await palace.file(conversationDrafts("home", "chat", TURNS));
    await palace.close();
    const small = hashingEmbedding({ dimensions: 64 });
    await expect(repairPalace(dir, { chromaUrl, embedding: small })).rejects.toThrow(
      "was built with embedding hashing-v1-384, not hashing-v1-64",
    );
    expect(await repairPalace(dir, { chromaUrl, embedding: small, reembed: true })).toEqual({
      replayed: 0,
      vectorsAdded: 3,
      vectorsRemoved: 0,
      lexicalRows: 3,
      reembedded: true,
    });
    const switched = await openPalace(dir, { chromaUrl, embedding: small });
    expect((await switched.search("spare key neighbour", { mode: "vector" }))[0]?.id).toBe(filed[2]!.id);
    await switched.close();
    const byDefault = await openPalace(dir, { chromaUrl });
    expect(byDefault.embedding.id).toBe("hashing-v1-64");
    await byDefault.close();
  });
});
