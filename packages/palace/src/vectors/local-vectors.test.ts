import { hashingEmbedding } from "@atrium/chroma";
import { afterAll, describe, expect, it } from "vitest";
import { conversationDrafts, TestPalaces } from "../../test/test-palaces.js";
import { palaceCore } from "../core/palace-core.js";
import { VECTOR_TABLE } from "../db/schema.js";
import { openPalace } from "../open-palace.js";
import { repairPalace } from "../repair.js";
import { encodeVector, nearestInScope } from "./local-vectors.js";
import { vectorText } from "./vector-text.js";

const palaces = new TestPalaces();
afterAll(() => palaces.cleanup());

const TURNS: [string, string][] = [
  ["Ana", "The boiler service is booked for Tuesday morning."],
  ["Ben", "Remember to renew the car insurance before June."],
  ["Ana", "The spare key is with the neighbour at number 12."],
  ["Ben", "The boiler made a clicking noise again last night."],
];

const homeScope = { sql: "d.wing = ?", params: ["home"] };

function storedCount(db: import("../db/sql/sql-database.js").SqlDatabase): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${VECTOR_TABLE}`).get() as { n: number }).n;
}

describe("local vectors", () => {
  it("encodes vectors L2-normalised as float32; a zero vector stays zero", () => {
    expect([...new Float32Array(new Uint8Array(encodeVector([3, 4])).buffer)]).toEqual([
      Math.fround(0.6),
      Math.fround(0.8),
    ]);
    expect([...new Float32Array(new Uint8Array(encodeVector([0, 0, 0])).buffer)]).toEqual([0, 0, 0]);
  });

  it("filing stores each drawer's vector; the scope's nearest match Chroma's, ids and distances", async () => {
    const palace = await palaces.open();
    const filed = await palace.file([
      ...conversationDrafts("home", "chat", TURNS),
      ...conversationDrafts("work", "standup", [["Cy", "The boiler room audit is due Friday."]]),
    ]);
    const { db, index } = palaceCore(palace);
    expect(storedCount(db)).toBe(5);
    const [query] = await palace.embedding.embed(["boiler noise"]);
    const local = nearestInScope(db, query!, homeScope, 3, 100);
    const homeIds = filed.slice(0, 4).map((result) => result.id);
    const chroma = await index.query(query!, 3, { ids: homeIds });
    expect(local?.map((match) => match.id)).toEqual(chroma.map((match) => match.id));
    local?.forEach((match, at) => {
      expect(match.distance).toBeCloseTo(chroma[at]!.distance, 5);
    });
    expect(local?.[0]?.id).toBe(filed[3]!.id);
    // A drawer's stored vector is its embedded text, normalised.
    const [own] = await palace.embedding.embed([
      vectorText({ ...conversationDrafts("home", "chat", TURNS)[0]! }),
    ]);
    const first = nearestInScope(db, own!, homeScope, 1, 100);
    expect(first?.[0]?.id).toBe(filed[0]!.id);
    expect(first?.[0]?.distance).toBeCloseTo(0, 5);
  });

  it("answers undefined for a scope wider than maxScope or with a drawer lacking its vector; repair restores it", async () => {
    const palace = await palaces.open();
    const filed = await palace.file(conversationDrafts("home", "chat", TURNS));
    const { db } = palaceCore(palace);
    const [query] = await palace.embedding.embed(["spare key"]);
    expect(nearestInScope(db, query!, homeScope, 2, 3)).toBeUndefined();
    expect(nearestInScope(db, query!, { sql: "d.wing = ?", params: ["nowhere"] }, 2, 3)).toEqual([]);
    const before = await palace.search("spare key neighbour", { mode: "vector", wing: "home" });
    // As a palace from schema v1 is: vectors in Chroma, none stored locally.
    db.exec(
      `DELETE FROM ${VECTOR_TABLE} WHERE drawer_rowid = (SELECT rowid FROM drawers WHERE id = '${filed[2]!.id}')`,
    );
    expect(nearestInScope(db, query!, homeScope, 2, 100)).toBeUndefined();
    // The search then asks Chroma, with the same answer.
    const fallback = await palace.search("spare key neighbour", { mode: "vector", wing: "home" });
    expect(fallback.map((hit) => hit.id)).toEqual(before.map((hit) => hit.id));
    expect(fallback[0]?.id).toBe(filed[2]!.id);
    expect(await palace.repair()).toEqual({
      replayed: 0,
      vectorsAdded: 0,
      vectorsRemoved: 0,
      lexicalRows: 4,
      reembedded: false,
    });
    expect(storedCount(db)).toBe(4);
    expect(nearestInScope(db, query!, homeScope, 1, 100)?.[0]?.id).toBe(filed[2]!.id);
  });

  it("a deleted drawer's vector goes with it; a changed text drops the stored vector", async () => {
    const palace = await palaces.open();
    const filed = await palace.file(conversationDrafts("home", "chat", TURNS));
    const { db } = palaceCore(palace);
    expect(await palace.delete(filed[0]!.id)).toBe(true);
    expect(storedCount(db)).toBe(3);
    // Another writer changing the text the vector was made from: the trigger drops it at once.
    db.prepare("UPDATE drawers SET speaker = 'Cleo' WHERE id = ?").run(filed[1]!.id);
    expect(storedCount(db)).toBe(2);
    const [query] = await palace.embedding.embed(["car insurance"]);
    expect(nearestInScope(db, query!, homeScope, 2, 100)).toBeUndefined();
  });

  it("a re-embed replaces every stored vector with the new embedding's", async () => {
    const dir = await palaces.dir();
    const chromaUrl = await palaces.chromaUrl();
    const palace = await openPalace(dir, { create: true, chromaUrl });
    const filed = await palace.file(conversationDrafts("home", "chat", TURNS));
    await palace.close();
    const small = hashingEmbedding({ dimensions: 64 });
    await repairPalace(dir, { chromaUrl, embedding: small, reembed: true });
    const switched = await openPalace(dir, { chromaUrl, embedding: small });
    try {
      const { db } = palaceCore(switched);
      expect(
        db
          .prepare(
            `SELECT COUNT(*) AS n, MIN(length(vector)) AS min, MAX(length(vector)) AS max FROM ${VECTOR_TABLE}`,
          )
          .get(),
      ).toEqual({ n: 4, min: 64 * 4, max: 64 * 4 });
      const hits = await switched.search("spare key neighbour", { mode: "vector", wing: "home" });
      expect(hits[0]?.id).toBe(filed[2]!.id);
    } finally {
      await switched.close();
    }
  });
});
