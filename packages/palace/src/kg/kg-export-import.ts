import { LimitError, ValidationError } from "@atrium/spec";
import { KnowledgeGraphConflictError } from "../errors.js";
import { type KgContext, SUBJECT } from "./kg-context.js";
import { addAlias, type EntityRow, ensureEntity, entityFromRow } from "./kg-entities.js";
import { renderFact } from "./kg-fact-lines.js";
import { insertTriple } from "./kg-facts.js";
import { entityKey } from "./kg-names.js";
import { listPredicates } from "./kg-predicates.js";
import { type TripleRow, tripleFromRow } from "./kg-rows.js";
import type { KnowledgeGraphImportResult, KnowledgeGraphRow, Triple } from "./kg-types.js";

// The whole graph as rows for the palace's JSONL export, and taking them back.

const EXPORT_PAGE = 1_000;

/**
 * The whole graph as rows for the palace's JSONL export: predicates, then entities, then
 * triples in insertion order. Read in pages, so a caller may write elsewhere between rows.
 */
export function* exportGraph(ctx: KgContext): Generator<KnowledgeGraphRow> {
  for (const predicate of listPredicates(ctx)) yield { kind: "kg-predicate", ...predicate };
  const wings = ctx.readableWings();
  let lastEntity = 0;
  for (;;) {
    const page = ctx.statements.entityPage.all({
      after: lastEntity,
      limit: EXPORT_PAGE,
      wings,
    }) as EntityRow[];
    for (const row of page) yield { kind: "kg-entity", ...entityFromRow(ctx, row) };
    if (page.length < EXPORT_PAGE) break;
    lastEntity = (page[page.length - 1] as EntityRow).id;
  }
  let lastSeq = 0;
  for (;;) {
    const page = ctx.statements.triplePage.all({
      after: lastSeq,
      limit: EXPORT_PAGE,
      wings,
    }) as TripleRow[];
    for (const row of page) yield { kind: "kg-triple", ...tripleFromRow(row) };
    if (page.length < EXPORT_PAGE) break;
    lastSeq = (page[page.length - 1] as TripleRow).seq;
  }
}

/**
 * Takes back rows written by `export` in one transaction (all or nothing): entities merge into
 * ones their name or aliases resolve to, triples keep their ids and times and skip conflict
 * checks (they are a record, not new claims). A triple id already holding the same fact is
 * skipped; one holding a different fact is refused. Each row is validated, errors name its index.
 */
export function importGraph(ctx: KgContext, rows: Iterable<unknown>): KnowledgeGraphImportResult {
  return ctx.write(() => {
    const result: KnowledgeGraphImportResult = { entities: 0, predicates: 0, triples: 0, skipped: 0 };
    let index = 0;
    for (const value of rows) {
      if (index >= ctx.limits.maxImportRows) {
        throw new LimitError(
          "maxImportRows",
          `An import holds more than ${ctx.limits.maxImportRows} rows; split it or raise the maxImportRows limit`,
        );
      }
      const row = ctx.parse(ctx.schemas.row, value, ["rows", index]);
      index++;
      if (row.kind === "kg-predicate") {
        ctx.access.assertAdmin("importing predicate declarations");
        ctx.statements.upsertPredicate.run(row.name, row.singleValued ? 1 : 0);
        result.predicates++;
      } else if (row.kind === "kg-entity") {
        // Rows from before facts had wings go where a migration would have put them.
        const wing = ctx.importWing(row.wing, index - 1);
        const entity = ensureEntity(ctx, wing, row.name, undefined, row.createdAt);
        if (row.type !== undefined && entity.type !== row.type) {
          ctx.statements.setEntityType.run(row.type, entity.id);
        }
        for (const alias of row.aliases) addAlias(ctx, entity, alias);
        result.entities++;
      } else {
        const { kind: _kind, wing: rowWing, ...fields } = row;
        const wing = ctx.importWing(rowWing, index - 1);
        const triple = { ...fields, wing };
        const from = triple.validFrom === undefined ? undefined : ctx.time(triple.validFrom, "validFrom");
        const to = triple.validTo === undefined ? undefined : ctx.time(triple.validTo, "validTo");
        if (from !== undefined && to !== undefined && to.ms < from.ms) {
          throw new ValidationError(SUBJECT, [
            {
              path: ["rows", index - 1, "validTo"],
              message: `${to.text} is before validFrom ${from.text}`,
            },
          ]);
        }
        const stored = ctx.statements.tripleById.get(triple.id) as TripleRow | undefined;
        if (stored !== undefined) {
          if (stored.wing === wing && sameTriple(tripleFromRow(stored), triple)) {
            result.skipped++;
            continue;
          }
          throw new KnowledgeGraphConflictError(
            stored.wing === wing || ctx.access.canRead(stored.wing)
              ? `rows.${index - 1}: fact id ${triple.id} already holds "${renderFact(tripleFromRow(stored))}", not "${renderFact(triple)}"; import into an empty palace or drop that row`
              : `rows.${index - 1}: fact id ${triple.id} is taken; import into an empty palace or drop that row`,
          );
        }
        insertTriple(ctx, {
          id: triple.id,
          wing,
          subjectId: ensureEntity(ctx, wing, triple.subject, undefined, triple.createdAt).id,
          predicate: triple.predicate,
          objectId: ensureEntity(ctx, wing, triple.object, undefined, triple.createdAt).id,
          from,
          to,
          sourceDrawerId: triple.sourceDrawerId,
          confidence: triple.confidence,
          createdAt: triple.createdAt,
        });
        result.triples++;
      }
    }
    return result;
  });
}

function sameTriple(a: Triple, b: Triple): boolean {
  const fields: Array<keyof Triple> = [
    "subject",
    "predicate",
    "object",
    "validFrom",
    "validTo",
    "sourceDrawerId",
    "confidence",
    "createdAt",
  ];
  return fields.every((field) =>
    field === "subject" || field === "object"
      ? entityKey(String(a[field])) === entityKey(String(b[field]))
      : a[field] === b[field],
  );
}
