import { LimitError } from "@atrium/spec";
import { KnowledgeGraphConflictError, KnowledgeGraphNotFoundError } from "../errors.js";
import type { KgContext } from "./kg-context.js";
import type { Entity, EntityInput } from "./kg-types.js";

// Entities and their aliases: a name resolves, case and spacing ignored, within one wing.

export interface EntityRow {
  id: number;
  key: string;
  wing: string;
  name: string;
  type: string | null;
  created_at: string;
}

/**
 * The entity a name or alias resolves to (case and spacing ignored), if any: in `options.wing`,
 * else in the first readable wing (by name) that has one.
 */
export function findEntity(
  ctx: KgContext,
  name: string,
  options: { wing?: string } = {},
): Entity | undefined {
  const cleaned = ctx.parse(ctx.schemas.entityName("name"), name, ["name"]);
  const { wing } = ctx.parse(ctx.schemas.entityOptions, options, ["options"]);
  const [row] = resolveReadable(ctx, cleaned, wing);
  return row === undefined ? undefined : entityFromRow(ctx, row);
}

/**
 * Creates the entity if no name or alias resolves to it; sets its type when given and adds the
 * aliases. An alias that already names another entity is refused (merging is not supported).
 */
export function upsertEntity(ctx: KgContext, input: EntityInput): Entity {
  const { wing: asked, name, type, aliases } = ctx.parse(ctx.schemas.entity, input, ["entity"]);
  const wing = ctx.writeWing(asked, "entity.wing");
  return ctx.write(() => {
    const row = ensureEntity(ctx, wing, name, undefined, ctx.nowIso());
    if (type !== undefined && row.type !== type) ctx.statements.setEntityType.run(type, row.id);
    for (const alias of aliases ?? []) addAlias(ctx, row, alias);
    return entityFromRow(ctx, ctx.statements.entityById.get(row.id) as EntityRow);
  });
}

export function resolve(ctx: KgContext, wing: string, cleanedName: string): EntityRow | undefined {
  const key = ctx.wingKey(wing, cleanedName);
  return (ctx.statements.entityByKey.get(key) ?? ctx.statements.entityByAlias.get(key)) as
    | EntityRow
    | undefined;
}

/** The entities a name resolves to in each readable wing (or only in `wing`, which must be readable). */
export function resolveReadable(ctx: KgContext, cleanedName: string, wing?: string): EntityRow[] {
  if (wing !== undefined) {
    ctx.access.assertRead(wing, undefined, "wing");
    const row = resolve(ctx, wing, cleanedName);
    return row === undefined ? [] : [row];
  }
  const wings =
    ctx.access.wholeReadableWings() ??
    (ctx.statements.entityWings.all() as { wing: string }[]).map((row) => row.wing);
  return [...wings]
    .sort()
    .map((each) => resolve(ctx, each, cleanedName))
    .filter((row) => row !== undefined);
}

export function requireEntities(ctx: KgContext, name: string, wing?: string): EntityRow[] {
  const cleaned = ctx.parse(ctx.schemas.entityName("entity"), name, ["entity"]);
  const rows = resolveReadable(ctx, cleaned, wing);
  if (rows.length === 0) {
    throw new KnowledgeGraphNotFoundError(
      `No entity is named ${JSON.stringify(cleaned)} (nor has it as an alias); add a fact about it first, or check the spelling with query`,
    );
  }
  return rows;
}

export function ensureEntity(
  ctx: KgContext,
  wing: string,
  name: string,
  type: string | undefined,
  createdAt: string,
): EntityRow {
  const existing = resolve(ctx, wing, name);
  if (existing !== undefined) {
    if (type !== undefined && existing.type === null) {
      ctx.statements.setEntityType.run(type, existing.id);
      return { ...existing, type };
    }
    return existing;
  }
  const key = ctx.wingKey(wing, name);
  const { id } = ctx.statements.insertEntity.get(key, wing, name, type ?? null, createdAt) as { id: number };
  return { id, key, wing, name, type: type ?? null, created_at: createdAt };
}

export function addAlias(ctx: KgContext, entity: EntityRow, alias: string): void {
  const key = ctx.wingKey(entity.wing, alias);
  if (key === entity.key) return;
  const owner = resolve(ctx, entity.wing, alias);
  if (owner !== undefined) {
    if (owner.id === entity.id) return;
    throw new KnowledgeGraphConflictError(
      `The alias ${JSON.stringify(alias)} already names the entity ${JSON.stringify(owner.name)}; an alias can point at one entity only`,
    );
  }
  const count = (ctx.statements.aliasCount.get(entity.id) as { count: number }).count;
  if (count >= ctx.limits.maxEntityAliases) {
    throw new LimitError(
      "maxEntityAliases",
      `${entity.name} already has ${count} aliases (the maxEntityAliases limit); ${JSON.stringify(alias)} was not added`,
    );
  }
  ctx.statements.insertAlias.run(key, alias, entity.id);
}

export function entityFromRow(ctx: KgContext, row: EntityRow): Entity {
  const aliases = (ctx.statements.aliasesOf.all(row.id) as Array<{ alias: string }>).map((a) => a.alias);
  const entity: Entity = { wing: row.wing, name: row.name, aliases, createdAt: row.created_at };
  if (row.type !== null) entity.type = row.type;
  return entity;
}
