import { afterEach, beforeEach, expect, it } from "vitest";
import { describeEachStore, type TestDatabase } from "../../test/sql-stores.js";
import { PalaceAccess } from "../access/palace-access.js";
import { KnowledgeGraphConflictError } from "../errors.js";
import { KnowledgeGraph } from "./knowledge-graph.js";

const clock = () => new Date("2025-01-01T00:00:00.000Z");

/** Export through JSON text, as the palace's JSONL file carries it. */
function exportedLines(graph: KnowledgeGraph): unknown[] {
  return [...graph.export()].map((row) => JSON.parse(JSON.stringify(row)));
}

describeEachStore((store) => {
  let source: TestDatabase;
  let target: TestDatabase;
  let kg: KnowledgeGraph;

  beforeEach(async () => {
    source = await store.open();
    target = await store.open();
    kg = new KnowledgeGraph(source.db, { singleValuedPredicates: ["lives_in"], now: clock });
    kg.upsertEntity({ name: "Caroline", type: "person", aliases: ["Caro", "C. Smith"] });
    kg.declarePredicate("likes", { singleValued: false });
    kg.add({
      subject: "Caroline",
      predicate: "lives_in",
      object: "Boston",
      validFrom: "2023-05",
      objectType: "city",
    });
    kg.add(
      { subject: "Caroline", predicate: "lives_in", object: "New York", validFrom: "2024-03-01T10:00:00Z" },
      { onConflict: "invalidate" },
    );
    kg.add({
      subject: "Melanie",
      predicate: "friend_of",
      object: "Caro",
      sourceDrawerId: "d_0123456789abcdef01234567",
      confidence: 0.75,
    });
  });
  afterEach(() => {
    source.close();
    target.close();
  });

  it("exports predicates, entities and triples as plain rows", () => {
    const rows = exportedLines(kg);
    expect(rows.slice(0, 6)).toEqual([
      { kind: "kg-predicate", name: "likes", singleValued: false },
      { kind: "kg-predicate", name: "lives_in", singleValued: true },
      {
        kind: "kg-entity",
        wing: "facts",
        name: "Caroline",
        type: "person",
        aliases: ["Caro", "C. Smith"],
        createdAt: clock().toISOString(),
      },
      {
        kind: "kg-entity",
        wing: "facts",
        name: "Boston",
        type: "city",
        aliases: [],
        createdAt: clock().toISOString(),
      },
      { kind: "kg-entity", wing: "facts", name: "New York", aliases: [], createdAt: clock().toISOString() },
      { kind: "kg-entity", wing: "facts", name: "Melanie", aliases: [], createdAt: clock().toISOString() },
    ]);
    expect(rows.slice(6).map((row) => (row as { validTo?: string }).validTo)).toEqual([
      "2024-03-01T10:00:00Z",
      undefined,
      undefined,
    ]);
  });

  it("round-trips losslessly into a new palace, and a second import changes nothing", () => {
    const rows = exportedLines(kg);
    const copy = new KnowledgeGraph(target.db, { now: () => new Date("2030-01-01T00:00:00Z") });
    expect(copy.import(rows)).toEqual({ entities: 4, predicates: 2, triples: 3, skipped: 0 });
    expect(exportedLines(copy)).toEqual(rows);
    expect(copy.query({ subject: "caro", asOf: "2024-01-01" })).toEqual(
      kg.query({ subject: "caro", asOf: "2024-01-01" }),
    );
    expect(copy.isSingleValued("lives_in")).toBe(true);
    expect(copy.import(rows)).toEqual({ entities: 4, predicates: 2, triples: 0, skipped: 3 });
    expect(exportedLines(copy)).toEqual(rows);
  });

  it("imports all or nothing: a row naming a stored id with another fact is refused", () => {
    const rows = exportedLines(kg) as Array<Record<string, unknown>>;
    const copy = new KnowledgeGraph(target.db);
    copy.import(rows);
    const before = exportedLines(copy);
    const altered = rows.map((row, index) => (index === 7 ? { ...row, object: "Chicago" } : row));
    const extra = { kind: "kg-entity", name: "Zoe", aliases: [], createdAt: "2025-01-01" };
    const id = rows[7]?.id as string;
    expect(() => copy.import([extra, ...altered])).toThrow(
      new KnowledgeGraphConflictError(
        `rows.8: fact id ${id} already holds "Caroline — lives_in → New York (since 2024-03-01)", not "Caroline — lives_in → Chicago (since 2024-03-01)"; import into an empty palace or drop that row`,
      ),
    );
    expect(exportedLines(copy)).toEqual(before);
    expect(copy.entity("Zoe")).toBeUndefined();
  });

  it("names the row and field of a bad row", () => {
    const copy = new KnowledgeGraph(target.db);
    expect(() =>
      copy.import([
        { kind: "kg-predicate", name: "likes", singleValued: false },
        { kind: "kg-triple", id: "t_1", subject: "A", predicate: "p", object: "B", createdAt: "yesterday" },
      ]),
    ).toThrow(
      "knowledge graph: rows.1.id: id must be 't_' followed by 24 lowercase hex digits, as the graph writes them; rows.1.createdAt: \"yesterday\" is not an ISO 8601 time; write e.g. 2023, 2023-05, 2023-05-01 or 2023-05-01T09:30:00Z",
    );
    expect(() => copy.import([{ kind: "kg-drawer" }])).toThrow(
      'knowledge graph: rows.0.kind: kind must be "kg-entity", "kg-predicate" or "kg-triple"',
    );
    expect(copy.predicates()).toEqual([]);
  });

  it('takes rows of an export from before facts had wings into wing "facts"; a view imports only into its wings', () => {
    const old = exportedLines(kg).map((row) => {
      const { wing: _wing, ...rest } = row as { wing?: string };
      return rest;
    });
    const copy = new KnowledgeGraph(target.db, { now: clock });
    expect(copy.import(old)).toEqual({ entities: 4, predicates: 2, triples: 3, skipped: 0 });
    expect(new Set(copy.query({}).map((fact) => fact.wing))).toEqual(new Set(["facts"]));
    const scoped = copy.scoped(PalaceAccess.of({ read: ["mine"], write: ["mine"] }, "me"));
    const mine = old
      .filter((row) => (row as { kind: string }).kind !== "kg-predicate")
      .map((row) => ({ ...(row as object), wing: "theirs" }));
    expect(() => scoped.import(mine)).toThrow(
      'rows.0.wing: me may not write wing "theirs"; its grants let it write "mine"',
    );
  });
});
