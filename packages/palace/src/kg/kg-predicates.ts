import type { KgContext } from "./kg-context.js";

// The predicate registry: which predicates are single-valued (and so get conflict checks).

/** Declares (or re-declares) a predicate; single-valued ones get conflict checks in `add`. Persisted. */
export function declarePredicate(ctx: KgContext, name: string, options: { singleValued: boolean }): void {
  ctx.access.assertAdmin("declaring a predicate (it applies to every wing)");
  const predicate = ctx.parse(ctx.schemas.predicate, name, ["predicate"]);
  const { singleValued } = ctx.parse(ctx.schemas.declareOptions, options, ["options"]);
  ctx.write(() => ctx.statements.upsertPredicate.run(predicate, singleValued ? 1 : 0));
}

/** Every declared predicate, by name. */
export function listPredicates(ctx: KgContext): Array<{ name: string; singleValued: boolean }> {
  const rows = ctx.statements.allPredicates.all() as Array<{ name: string; single_valued: number }>;
  return rows.map((row) => ({ name: row.name, singleValued: row.single_valued === 1 }));
}

export function isSingleValued(ctx: KgContext, predicate: string): boolean {
  const name = ctx.parse(ctx.schemas.predicate, predicate, ["predicate"]);
  const row = ctx.statements.getPredicate.get(name) as { single_valued: number } | undefined;
  return row?.single_valued === 1;
}

export function singleValued(ctx: KgContext, predicate: string): boolean {
  const row = ctx.statements.getPredicate.get(predicate) as { single_valued: number } | undefined;
  return row?.single_valued === 1;
}
