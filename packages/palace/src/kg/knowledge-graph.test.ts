import { ValidationError } from "@atrium/spec";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeEachStore, type TestDatabase } from "../../test/sql-stores.js";
import { PalaceAccess } from "../access/palace-access.js";
import { KnowledgeGraphConflictError, KnowledgeGraphNotFoundError } from "../errors.js";
import { KnowledgeGraph } from "./knowledge-graph.js";

const NOW = "2025-01-01T00:00:00.000Z";

/** The facts as compact strings, so assertions read like the graph. */
function spans(
  triples: Array<{
    subject: string;
    predicate: string;
    object: string;
    validFrom?: string;
    validTo?: string;
  }>,
) {
  return triples.map(
    (t) => `${t.subject} ${t.predicate} ${t.object} [${t.validFrom ?? "?"}, ${t.validTo ?? "open"})`,
  );
}

describeEachStore((store) => {
  let database: TestDatabase;
  let kg: KnowledgeGraph;

  beforeEach(async () => {
    database = await store.open();
    kg = new KnowledgeGraph(database.db, { singleValuedPredicates: ["lives_in"], now: () => new Date(NOW) });
  });
  afterEach(() => database.close());

  describe("entities", () => {
    it("resolves names ignoring case and spacing, and through aliases", () => {
      kg.upsertEntity({ name: "  Caroline   Smith ", type: "person", aliases: ["Caro"] });
      expect(kg.entity("caroline smith")).toEqual({
        wing: "facts",
        name: "Caroline Smith",
        type: "person",
        aliases: ["Caro"],
        createdAt: NOW,
      });
      expect(kg.entity("CARO")?.name).toBe("Caroline Smith");
      expect(kg.entity("Melanie")).toBeUndefined();
    });

    it("facts added under an alias land on the entity", () => {
      kg.upsertEntity({ name: "Caroline", aliases: ["Caro"] });
      kg.add({ subject: "caro", predicate: "likes", object: "Painting" });
      expect(spans(kg.query({ subject: "Caroline" }))).toEqual(["Caroline likes Painting [?, open)"]);
      expect(kg.stats().entities).toBe(2);
    });

    it("keeps each wing's names apart", () => {
      kg.add({ wing: "alice", subject: "Bob", predicate: "likes", object: "Tea" });
      kg.add({ wing: "carol", subject: "bob", predicate: "likes", object: "Coffee" });
      expect(kg.query({ subject: "BOB" }).map((t) => `${t.wing} ${t.subject} ${t.object}`)).toEqual([
        "alice Bob Tea",
        "carol bob Coffee",
      ]);
      expect(kg.entity("bob", { wing: "carol" })).toMatchObject({ wing: "carol", name: "bob" });
      expect(kg.entity("bob")?.wing).toBe("alice");
      expect(kg.stats().entities).toBe(4);
      // A view of one wing reads only its facts and counts only its entities.
      const carol = kg.scoped(PalaceAccess.of({ read: ["carol"], write: ["carol"] }, "carol"));
      expect(spans(carol.query({}))).toEqual(["bob likes Coffee [?, open)"]);
      expect(spans(carol.timeline("Bob"))).toEqual(["bob likes Coffee [?, open)"]);
      expect(carol.factsFor(undefined, 5)).toEqual(["bob — likes → Coffee"]);
      expect(carol.stats()).toMatchObject({
        entities: 2,
        triples: 1,
        topPredicates: [{ predicate: "likes", count: 1 }],
      });
      expect([...carol.export()].map((row) => row.kind)).toEqual([
        "kg-predicate",
        "kg-entity",
        "kg-entity",
        "kg-triple",
      ]);
    });

    it("refuses an alias that already names another entity", () => {
      kg.upsertEntity({ name: "Caroline" });
      kg.upsertEntity({ name: "Melanie", aliases: ["Mel"] });
      expect(() => kg.upsertEntity({ name: "Caroline", aliases: ["mel"] })).toThrow(
        new KnowledgeGraphConflictError(
          'The alias "mel" already names the entity "Melanie"; an alias can point at one entity only',
        ),
      );
      expect(kg.entity("Caroline")?.aliases).toEqual([]);
    });

    it("gives a new entity the type a fact names, without overwriting a known type", () => {
      kg.add({
        subject: "Caroline",
        predicate: "lives_in",
        object: "Boston",
        subjectType: "person",
        objectType: "city",
      });
      kg.add({ subject: "Boston", predicate: "in", object: "USA", subjectType: "place" });
      expect(kg.entity("Boston")?.type).toBe("city");
      expect(kg.entity("Caroline")?.type).toBe("person");
    });
  });

  describe("add", () => {
    it("stores a fact and treats an identical open fact as a no-op", () => {
      const first = kg.add({
        subject: "Caroline",
        predicate: "Lives in",
        object: "Boston",
        validFrom: "2023-05",
      });
      expect(first.created).toBe(true);
      expect(first.conflicts).toEqual([]);
      expect(first.triple).toEqual({
        id: expect.stringMatching(/^t_[0-9a-f]{24}$/),
        wing: "facts",
        subject: "Caroline",
        predicate: "lives_in",
        object: "Boston",
        validFrom: "2023-05",
        createdAt: NOW,
      });
      const again = kg.add({
        subject: "caroline",
        predicate: "lives_in",
        object: "BOSTON",
        validFrom: "2024-01-01",
      });
      expect(again).toEqual({ triple: first.triple, created: false, conflicts: [] });
      expect(kg.stats().triples).toBe(1);
    });

    it("reports a conflicting open fact of a single-valued predicate and stores nothing", () => {
      const boston = kg.add({
        subject: "Caroline",
        predicate: "lives_in",
        object: "Boston",
        validFrom: "2023-05",
      });
      const result = kg.add({
        subject: "Caroline",
        predicate: "lives_in",
        object: "New York",
        validFrom: "2024-03",
      });
      expect(result).toEqual({
        triple: undefined,
        created: false,
        conflicts: [
          {
            existing: boston.triple,
            resolution: "refused",
            message: `Caroline lives_in is single-valued and already holds Boston (since 2023-05), so New York was not stored; to record a change add it with onConflict "invalidate" (ends the old fact where the new one begins), or invalidate ${boston.triple?.id} first`,
          },
        ],
      });
      expect(spans(kg.query({ subject: "Caroline" }))).toEqual(["Caroline lives_in Boston [2023-05, open)"]);
      expect(kg.entity("New York")).toBeUndefined();
    });

    it("onConflict invalidate ends the old fact where the new one begins", () => {
      const boston = kg.add({
        subject: "Caroline",
        predicate: "lives_in",
        object: "Boston",
        validFrom: "2023-05",
      });
      const result = kg.add(
        { subject: "Caroline", predicate: "lives_in", object: "New York", validFrom: "2024-03" },
        { onConflict: "invalidate" },
      );
      expect(result.created).toBe(true);
      expect(result.triple?.object).toBe("New York");
      expect(result.conflicts).toEqual([
        {
          existing: { ...boston.triple, validTo: "2024-03" },
          resolution: "invalidated",
          message: "Caroline lives_in Boston (2023-05 – 2024-03) was ended, replaced by New York",
        },
      ]);
      expect(spans(kg.timeline("Caroline"))).toEqual([
        "Caroline lives_in Boston [2023-05, 2024-03)",
        "Caroline lives_in New York [2024-03, open)",
      ]);
      expect(spans(kg.query({ subject: "Caroline", asOf: "2024-02-29" }))).toEqual([
        "Caroline lives_in Boston [2023-05, 2024-03)",
      ]);
      expect(spans(kg.query({ subject: "Caroline", asOf: "2024-03-01" }))).toEqual([
        "Caroline lives_in New York [2024-03, open)",
      ]);
    });

    it("onConflict invalidate without validFrom replaces the old fact from now", () => {
      kg.add({ subject: "Caroline", predicate: "lives_in", object: "Boston" });
      const result = kg.add(
        { subject: "Caroline", predicate: "lives_in", object: "Paris" },
        { onConflict: "invalidate" },
      );
      expect(result.triple?.validFrom).toBe(NOW);
      expect(spans(kg.timeline("Caroline"))).toEqual([
        `Caroline lives_in Boston [?, ${NOW})`,
        `Caroline lives_in Paris [${NOW}, open)`,
      ]);
    });

    it("onConflict invalidate refuses when the old fact cannot end where the new one begins", () => {
      const boston = kg.add({
        subject: "Caroline",
        predicate: "lives_in",
        object: "Boston",
        validFrom: "2024-01",
      });
      const result = kg.add(
        { subject: "Caroline", predicate: "lives_in", object: "Denver", validFrom: "2023-01" },
        { onConflict: "invalidate" },
      );
      expect(result).toEqual({
        triple: undefined,
        created: false,
        conflicts: [
          {
            existing: boston.triple,
            resolution: "refused",
            message: `Caroline lives_in is single-valued and holds Boston (since 2024-01); it cannot be ended at 2023-01 because it begins at or after the new fact, so Denver was not stored; adjust validFrom/validTo, or invalidate ${boston.triple?.id} with an explicit time`,
          },
        ],
      });
      expect(kg.stats().openTriples).toBe(1);
    });

    it("keep-both stores the new fact and still reports the conflict", () => {
      kg.add({ subject: "Caroline", predicate: "lives_in", object: "Boston", validFrom: "2023-05" });
      const result = kg.add(
        { subject: "Caroline", predicate: "lives_in", object: "Denver", confidence: 0.4 },
        { onConflict: "keep-both" },
      );
      expect(result.created).toBe(true);
      expect(result.triple?.confidence).toBe(0.4);
      expect(result.conflicts.map((c) => [c.resolution, c.message])).toEqual([
        [
          "kept-both",
          "Caroline lives_in is single-valued but now holds both Boston (since 2023-05) and Denver; invalidate the one that is wrong",
        ],
      ]);
      expect(kg.query({ subject: "Caroline", asOf: NOW }).map((t) => t.object)).toEqual(["Denver", "Boston"]);
    });

    it("a past fact that does not overlap the open one is no conflict", () => {
      kg.add({ subject: "Caroline", predicate: "lives_in", object: "Boston", validFrom: "2020" });
      const past = kg.add({
        subject: "Caroline",
        predicate: "lives_in",
        object: "London",
        validFrom: "2010",
        validTo: "2015-06",
      });
      expect(past.created).toBe(true);
      expect(past.conflicts).toEqual([]);
      const overlapping = kg.add({
        subject: "Caroline",
        predicate: "lives_in",
        object: "Rome",
        validFrom: "2019",
        validTo: "2021",
      });
      expect(overlapping.conflicts.map((c) => c.existing.object)).toEqual(["Boston"]);
      // An undated fact is compared with what holds now, not with the closed past.
      const undated = kg.add({ subject: "Caroline", predicate: "lives_in", object: "Oslo" });
      expect(undated.conflicts.map((c) => c.existing.object)).toEqual(["Boston"]);
    });

    it("multi-valued predicates never conflict; declarations persist across opens", () => {
      kg.add({ subject: "Caroline", predicate: "likes", object: "Painting" });
      expect(kg.add({ subject: "Caroline", predicate: "likes", object: "Hiking" }).conflicts).toEqual([]);
      kg.declarePredicate("works_at", { singleValued: true });
      const reopened = new KnowledgeGraph(database.db);
      expect(reopened.isSingleValued("Works at")).toBe(true);
      expect(reopened.isSingleValued("likes")).toBe(false);
      expect(reopened.predicates()).toEqual([
        { name: "lives_in", singleValued: true },
        { name: "works_at", singleValued: true },
      ]);
    });

    it("names every bad field", () => {
      expect(() =>
        kg.add({
          subject: " ",
          predicate: "lives in!",
          object: "Boston",
          validFrom: "May 2023",
          confidence: 2,
          valid_to: "2024",
        } as never),
      ).toThrow(
        new ValidationError("knowledge graph", [
          { path: ["fact", "subject"], message: "subject is empty; give a name" },
          {
            path: ["fact", "predicate"],
            message:
              "predicate may hold only letters, digits, '_', '.' and ':' (words joined by underscores, e.g. lives_in)",
          },
          {
            path: ["fact", "validFrom"],
            message:
              '"May 2023" is not an ISO 8601 time; write e.g. 2023, 2023-05, 2023-05-01 or 2023-05-01T09:30:00Z',
          },
          { path: ["fact", "confidence"], message: "confidence must be between 0 and 1" },
          { path: ["fact"], message: 'Unrecognized key: "valid_to"' },
        ]),
      );
    });

    it("refuses a sourceDrawerId holding NUL, which PostgreSQL cannot store", () => {
      expect(() =>
        kg.add({ subject: "Caroline", predicate: "likes", object: "Jazz", sourceDrawerId: "d_1\u0000" }),
      ).toThrow(
        "knowledge graph: fact.sourceDrawerId: sourceDrawerId holds a NUL character (U+0000), which no drawer id has; remove it",
      );
      expect(kg.stats().triples).toBe(0);
    });

    it("refuses a fact that ends before it begins", () => {
      expect(() =>
        kg.add({
          subject: "Caroline",
          predicate: "likes",
          object: "Jazz",
          validFrom: "2024-02",
          validTo: "2024-01",
        }),
      ).toThrow(
        "knowledge graph: fact.validTo: 2024-01 is before validFrom 2024-02; a fact cannot end before it begins",
      );
    });

    it("enforces the name length limit", () => {
      const small = new KnowledgeGraph(database.db, { limits: { maxEntityNameChars: 5 } });
      expect(() => small.add({ subject: "Caroline", predicate: "likes", object: "Jazz" })).toThrow(
        "knowledge graph: fact.subject: subject is longer than 5 characters; shorten it",
      );
    });
  });

  describe("invalidate", () => {
    it("ends a fact by id or by subject, predicate and object, keeping its history", () => {
      const jazz = kg.add({ subject: "Caroline", predicate: "likes", object: "Jazz", validFrom: "2020" });
      kg.add({ subject: "Caroline", predicate: "likes", object: "Rock", validFrom: "2021" });
      const ended = kg.invalidate(jazz.triple?.id as string, { at: "2022-07-01" });
      expect(spans(ended)).toEqual(["Caroline likes Jazz [2020, 2022-07-01)"]);
      const byName = kg.invalidate({ subject: "caroline", predicate: "likes", object: "rock" });
      expect(spans(byName)).toEqual([`Caroline likes Rock [2021, ${NOW})`]);
      expect(kg.query({ subject: "Caroline", asOf: "2025-06-01" })).toEqual([]);
      expect(kg.query({ subject: "Caroline", asOf: "2021-06-01" }).map((t) => t.object)).toEqual([
        "Jazz",
        "Rock",
      ]);
    });

    it("says what is missing or wrong", () => {
      const jazz = kg.add({ subject: "Caroline", predicate: "likes", object: "Jazz", validFrom: "2020" });
      const id = jazz.triple?.id as string;
      expect(() => kg.invalidate("t_000000000000000000000000")).toThrow(
        new KnowledgeGraphNotFoundError(
          "No fact has id t_000000000000000000000000; find fact ids with query or timeline",
        ),
      );
      expect(() => kg.invalidate({ subject: "Caroline", predicate: "likes", object: "Pop" })).toThrow(
        new KnowledgeGraphNotFoundError(
          'No open fact "Caroline likes Pop"; check the names with query or timeline',
        ),
      );
      expect(() => kg.invalidate(id, { at: "2019" })).toThrow(
        `knowledge graph: options.at: 2019 is before fact ${id} began (2020); end it at or after its validFrom`,
      );
      kg.invalidate(id, { at: "2021" });
      expect(() => kg.invalidate(id)).toThrow(
        new KnowledgeGraphConflictError(
          `Fact ${id} (Caroline — likes → Jazz (2020 – 2021)) already ended at 2021; nothing to invalidate`,
        ),
      );
      expect(() => kg.invalidate({ subject: "Caroline" } as never)).toThrow(
        "knowledge graph: target.predicate: predicate must be a string; target.object: object must be a string",
      );
      expect(() => kg.invalidate(7 as never)).toThrow(
        "knowledge graph: target: give a fact id (t_…) or { subject, predicate, object }",
      );
      expect(() => kg.invalidate("f_1")).toThrow(
        "knowledge graph: target: id must be 't_' followed by 24 lowercase hex digits, as the graph writes them",
      );
    });
  });

  describe("query and timeline", () => {
    beforeEach(() => {
      kg.add({ subject: "Caroline", predicate: "lives_in", object: "Boston", validFrom: "2023-05" });
      kg.add({ subject: "Melanie", predicate: "friend_of", object: "Caroline", validFrom: "2019" });
      kg.add({ subject: "Caroline", predicate: "likes", object: "Painting" });
      kg.add({ subject: "Melanie", predicate: "lives_in", object: "Boston", validFrom: "2024-02-10" });
    });

    it("filters by subject, predicate, object and time", () => {
      expect(spans(kg.query({ predicate: "lives_in" }))).toEqual([
        "Caroline lives_in Boston [2023-05, open)",
        "Melanie lives_in Boston [2024-02-10, open)",
      ]);
      expect(spans(kg.query({ object: "boston", asOf: "2024-01-01" }))).toEqual([
        "Caroline lives_in Boston [2023-05, open)",
      ]);
      expect(kg.query({ subject: "Nobody" })).toEqual([]);
      expect(kg.query({ limit: 2 })).toHaveLength(2);
    });

    it("orders a timeline by validFrom, unknown first, covering both roles", () => {
      expect(spans(kg.timeline("caroline"))).toEqual([
        "Caroline likes Painting [?, open)",
        "Melanie friend_of Caroline [2019, open)",
        "Caroline lives_in Boston [2023-05, open)",
      ]);
      expect(() => kg.timeline("Nobody")).toThrow(
        new KnowledgeGraphNotFoundError(
          'No entity is named "Nobody" (nor has it as an alias); add a fact about it first, or check the spelling with query',
        ),
      );
    });

    it("counts", () => {
      kg.invalidate({ subject: "Caroline", predicate: "likes", object: "Painting" });
      kg.upsertEntity({ name: "Caroline", aliases: ["Caro", "C."] });
      expect(kg.stats()).toEqual({
        entities: 4,
        aliases: 2,
        triples: 4,
        openTriples: 3,
        endedTriples: 1,
        predicates: 3,
        singleValuedPredicates: ["lives_in"],
        topPredicates: [
          { predicate: "lives_in", count: 2 },
          { predicate: "friend_of", count: 1 },
          { predicate: "likes", count: 1 },
        ],
      });
    });

    it("renders facts true now as short lines", () => {
      kg.add({ subject: "Caroline", predicate: "likes", object: "Jazz", validFrom: "2020", validTo: "2021" });
      expect(kg.factsFor("Caroline", 10)).toEqual([
        "Caroline — lives_in → Boston (since 2023-05)",
        "Caroline — likes → Painting",
        "Melanie — friend_of → Caroline (since 2019)",
      ]);
      expect(kg.factsFor(undefined, 3)).toEqual([
        "Caroline — lives_in → Boston (since 2023-05)",
        "Caroline — likes → Painting",
        "Melanie — lives_in → Boston (since 2024-02-10)",
      ]);
      expect(kg.factsFor("Nobody", 5)).toEqual([]);
    });
  });

  describe("neighbours", () => {
    beforeEach(() => {
      kg.add({ subject: "Caroline", predicate: "friend_of", object: "Melanie" });
      kg.add({
        subject: "Melanie",
        predicate: "married_to",
        object: "Tom",
        validFrom: "2015",
        validTo: "2020",
      });
      kg.add({ subject: "Tom", predicate: "works_at", object: "Acme" });
      kg.add({ subject: "Zoe", predicate: "friend_of", object: "Caroline" });
    });

    it("walks facts in both directions to the given depth", () => {
      const one = kg.neighbours("caroline", 1);
      expect(one.nodes).toEqual([
        { name: "Caroline", depth: 0 },
        { name: "Melanie", depth: 1 },
        { name: "Zoe", depth: 1 },
      ]);
      expect(spans(one.edges)).toEqual([
        "Caroline friend_of Melanie [?, open)",
        "Zoe friend_of Caroline [?, open)",
      ]);
      expect(one.truncated).toBe(false);
      const three = kg.neighbours("Caroline", 3);
      expect(three.nodes.map((n) => `${n.name}@${n.depth}`)).toEqual([
        "Caroline@0",
        "Melanie@1",
        "Zoe@1",
        "Tom@2",
        "Acme@3",
      ]);
      expect(three.edges).toHaveLength(4);
    });

    it("follows only facts true at asOf", () => {
      expect(kg.neighbours("Melanie", 2, { asOf: "2022" }).nodes.map((n) => n.name)).toEqual([
        "Melanie",
        "Caroline",
        "Zoe",
      ]);
    });

    it("stops at the node limit and at the depth limit", () => {
      const small = new KnowledgeGraph(database.db, {
        limits: { maxTraversalNodes: 2, maxTraversalHops: 2 },
      });
      const walk = small.neighbours("Caroline", 2);
      expect(walk.nodes.map((n) => n.name)).toEqual(["Caroline", "Melanie"]);
      expect(spans(walk.edges)).toEqual(["Caroline friend_of Melanie [?, open)"]);
      expect(walk.truncated).toBe(true);
      expect(() => small.neighbours("Caroline", 3)).toThrow(
        "knowledge graph: depth: depth is at most 2 (the maxTraversalHops limit)",
      );
    });
  });
});
