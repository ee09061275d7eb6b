import { randomBytes } from "node:crypto";
import { ValidationError } from "@atrium/spec";
import { KnowledgeGraphConflictError, KnowledgeGraphNotFoundError } from "../errors.js";
import {
  invalidatedMessage,
  keptBothMessage,
  refusedMessage,
  unresolvableMessage,
} from "./kg-conflict-messages.js";
import { type KgContext, SUBJECT } from "./kg-context.js";
import { ensureEntity, resolve } from "./kg-entities.js";
import { renderFact } from "./kg-fact-lines.js";
import { singleValued } from "./kg-predicates.js";
import { type TripleRow, tripleFromRow } from "./kg-rows.js";
import type { FactTime } from "./kg-time.js";
import type {
  AddFactOptions,
  AddFactResult,
  FactConflict,
  FactInput,
  InvalidateOptions,
  InvalidateTarget,
  Triple,
} from "./kg-types.js";

// Facts: adding one (with conflict detection on single-valued predicates) and ending them.

/**
 * Stores a fact unless an identical one already holds (then `created: false` and the stored
 * one). For a single-valued predicate, stored facts with the same subject and another object
 * whose time overlaps the new one are conflicts; `options.onConflict` says what happens
 * (see `ConflictPolicy`). A fact without `validFrom` is compared with what holds now.
 */
export function addFact(ctx: KgContext, fact: FactInput, options: AddFactOptions = {}): AddFactResult {
  const input = ctx.parse(ctx.schemas.fact, fact, ["fact"]);
  const wing = ctx.writeWing(input.wing, "fact.wing");
  const { onConflict = "report" } = ctx.parse(ctx.schemas.addOptions, options, ["options"]);
  let from = input.validFrom === undefined ? undefined : ctx.time(input.validFrom, "fact.validFrom");
  const to = input.validTo === undefined ? undefined : ctx.time(input.validTo, "fact.validTo");
  return ctx.write(() => {
    const nowIso = ctx.nowIso();
    // "invalidate" means the new fact replaces the old from its start; without a start that is now.
    if (from === undefined && onConflict === "invalidate") from = { text: nowIso, ms: Date.parse(nowIso) };
    if (from !== undefined && to !== undefined && to.ms < from.ms) {
      throw new ValidationError(SUBJECT, [
        {
          path: ["fact", "validTo"],
          message: `${to.text} is before validFrom ${from.text}; a fact cannot end before it begins`,
        },
      ]);
    }
    const subject = resolve(ctx, wing, input.subject);
    const object = resolve(ctx, wing, input.object);
    if (subject !== undefined && object !== undefined) {
      const same = sameFact(ctx, subject.id, input.predicate, object.id, from, to);
      if (same !== undefined) return { triple: same, created: false, conflicts: [] };
    }
    const conflicts =
      subject !== undefined && singleValued(ctx, input.predicate)
        ? overlapping(ctx, subject.id, input.predicate, object?.id, from?.ms ?? Date.parse(nowIso), to?.ms)
        : [];
    const objectName = object?.name ?? input.object;
    const store = (): Triple => {
      const subjectRow = ensureEntity(ctx, wing, input.subject, input.subjectType, nowIso);
      const objectRow = ensureEntity(ctx, wing, input.object, input.objectType, nowIso);
      return insertTriple(ctx, {
        id: newTripleId(),
        wing,
        subjectId: subjectRow.id,
        predicate: input.predicate,
        objectId: objectRow.id,
        from,
        to,
        sourceDrawerId: input.sourceDrawerId,
        confidence: input.confidence,
        createdAt: nowIso,
      });
    };
    if (conflicts.length === 0) return { triple: store(), created: true, conflicts: [] };
    if (onConflict === "report") {
      return {
        triple: undefined,
        created: false,
        conflicts: conflicts.map((row) => refused(row, objectName)),
      };
    }
    if (onConflict === "keep-both") {
      const triple = store();
      const reported = conflicts.map(
        (row): FactConflict => ({
          existing: tripleFromRow(row),
          resolution: "kept-both",
          message: keptBothMessage(tripleFromRow(row), triple.object),
        }),
      );
      return { triple, created: true, conflicts: reported };
    }
    // "invalidate": every conflict must be an open fact that began before the new one.
    const start = from as FactTime;
    const endable = (row: TripleRow) =>
      row.valid_to_ms === null && (row.valid_from_ms === null || row.valid_from_ms < start.ms);
    if (!conflicts.every(endable)) {
      return {
        triple: undefined,
        created: false,
        conflicts: conflicts.map((row): FactConflict => {
          const existing = tripleFromRow(row);
          return endable(row)
            ? refused(row, objectName)
            : {
                existing,
                resolution: "refused",
                message: unresolvableMessage(existing, objectName, start.text),
              };
        }),
      };
    }
    for (const row of conflicts) ctx.statements.endTriple.run(start.text, start.ms, row.id);
    const triple = store();
    const reported = conflicts.map((row): FactConflict => {
      const existing = tripleFromRow(ctx.statements.tripleById.get(row.id) as TripleRow);
      return { existing, resolution: "invalidated", message: invalidatedMessage(existing, triple.object) };
    });
    return { triple, created: true, conflicts: reported };
  });
}

/**
 * Ends facts at `options.at` (default now): the fact with that id, or every open fact with that
 * subject, predicate and object. Nothing is deleted, so `query({ asOf })` still finds them for
 * earlier times. Returns the ended facts.
 */
export function invalidateFacts(
  ctx: KgContext,
  target: InvalidateTarget,
  options: InvalidateOptions = {},
): Triple[] {
  const parsedTarget = parseTarget(ctx, target);
  const { at: atText, wing: askedWing } = ctx.parse(ctx.schemas.invalidateOptions, options, ["options"]);
  const targetWing = typeof parsedTarget === "string" ? undefined : ctx.writeWing(askedWing, "options.wing");
  return ctx.write(() => {
    const at = atText === undefined ? ctx.nowTime() : ctx.time(atText, "options.at");
    let rows: TripleRow[];
    if (typeof parsedTarget === "string") {
      const row = ctx.statements.tripleById.get(parsedTarget) as TripleRow | undefined;
      // A fact of a wing the caller cannot read is answered as if it did not exist.
      if (row === undefined || !ctx.access.canRead(row.wing)) {
        throw new KnowledgeGraphNotFoundError(
          `No fact has id ${parsedTarget}; find fact ids with query or timeline`,
        );
      }
      ctx.access.assertWrite(row.wing, undefined, "target");
      if (row.valid_to !== null) {
        throw new KnowledgeGraphConflictError(
          `Fact ${row.id} (${renderFact(tripleFromRow(row))}) already ended at ${row.valid_to}; nothing to invalidate`,
        );
      }
      rows = [row];
    } else {
      const subject = resolve(ctx, targetWing as string, parsedTarget.subject);
      const object = resolve(ctx, targetWing as string, parsedTarget.object);
      rows =
        subject === undefined || object === undefined
          ? []
          : (ctx.statements.openFacts.all({
              subject: subject.id,
              predicate: parsedTarget.predicate,
              object: object.id,
            }) as TripleRow[]);
      if (rows.length === 0) {
        throw new KnowledgeGraphNotFoundError(
          `No open fact "${parsedTarget.subject} ${parsedTarget.predicate} ${parsedTarget.object}"; check the names with query or timeline`,
        );
      }
    }
    for (const row of rows) {
      if (row.valid_from_ms !== null && at.ms < row.valid_from_ms) {
        throw new ValidationError(SUBJECT, [
          {
            path: ["options", "at"],
            message: `${at.text} is before fact ${row.id} began (${row.valid_from}); end it at or after its validFrom`,
          },
        ]);
      }
    }
    for (const row of rows) ctx.statements.endTriple.run(at.text, at.ms, row.id);
    return rows.map((row) => tripleFromRow(ctx.statements.tripleById.get(row.id) as TripleRow));
  });
}

function parseTarget(
  ctx: KgContext,
  target: unknown,
): string | { subject: string; predicate: string; object: string } {
  if (typeof target === "string") return ctx.parse(ctx.schemas.tripleId, target, ["target"]);
  if (typeof target === "object" && target !== null) {
    return ctx.parse(ctx.schemas.factTarget, target, ["target"]);
  }
  throw new ValidationError(SUBJECT, [
    { path: ["target"], message: "give a fact id (t_…) or { subject, predicate, object }" },
  ]);
}

/** A stored fact with the same subject, predicate and object that already covers the new span. */
function sameFact(
  ctx: KgContext,
  subjectId: number,
  predicate: string,
  objectId: number,
  from: FactTime | undefined,
  to: FactTime | undefined,
): Triple | undefined {
  const candidates = ctx.statements.sameFacts.all({
    subject: subjectId,
    predicate,
    object: objectId,
  }) as TripleRow[];
  const covering = candidates.find((row) => {
    // An open fact is restated by any open one: "identical open fact" is a no-op whatever its start.
    if (to === undefined) return row.valid_to_ms === null;
    const startsInTime = row.valid_from_ms === null || (from !== undefined && row.valid_from_ms <= from.ms);
    const endsInTime = row.valid_to_ms === null || row.valid_to_ms >= to.ms;
    return startsInTime && endsInTime;
  });
  return covering === undefined ? undefined : tripleFromRow(covering);
}

/** Facts of `subject predicate` with another object true at some instant of [fromMs, toMs). */
function overlapping(
  ctx: KgContext,
  subjectId: number,
  predicate: string,
  objectId: number | undefined,
  fromMs: number,
  toMs: number | undefined,
): TripleRow[] {
  return ctx.statements.overlapping.all({
    subject: subjectId,
    predicate,
    object: objectId ?? -1,
    from: fromMs,
    to: toMs ?? Number.MAX_SAFE_INTEGER,
  }) as TripleRow[];
}

export function insertTriple(
  ctx: KgContext,
  triple: {
    id: string;
    wing: string;
    subjectId: number;
    predicate: string;
    objectId: number;
    from: FactTime | undefined;
    to: FactTime | undefined;
    sourceDrawerId: string | undefined;
    confidence: number | undefined;
    createdAt: string;
  },
): Triple {
  ctx.statements.insertTriple.run({
    id: triple.id,
    wing: triple.wing,
    subject: triple.subjectId,
    predicate: triple.predicate,
    object: triple.objectId,
    validFrom: triple.from?.text ?? null,
    validFromMs: triple.from?.ms ?? null,
    validTo: triple.to?.text ?? null,
    validToMs: triple.to?.ms ?? null,
    source: triple.sourceDrawerId ?? null,
    confidence: triple.confidence ?? null,
    createdAt: triple.createdAt,
  });
  return tripleFromRow(ctx.statements.tripleById.get(triple.id) as TripleRow);
}

function newTripleId(): string {
  return `t_${randomBytes(12).toString("hex")}`;
}

function refused(row: TripleRow, newObject: string): FactConflict {
  const existing = tripleFromRow(row);
  return { existing, resolution: "refused", message: refusedMessage(existing, newObject) };
}
