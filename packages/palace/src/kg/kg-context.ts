import { ValidationError } from "@atrium/spec";
import type { z } from "zod";
import type { PalaceAccess } from "../access/palace-access.js";
import type { SqlDatabase } from "../db/sql/sql-database.js";
import type { KnowledgeGraphLimits } from "../limits.js";
import { type KnowledgeGraphSchemas, parseInput } from "./kg-input.js";
import { KEY_SEPARATORS, wingKey } from "./kg-names.js";
import { DEFAULT_FACT_WING } from "./kg-schema.js";
import type { KgStatements } from "./kg-statements.js";
import { type FactTime, factTime } from "./kg-time.js";

/** What the knowledge graph's errors name as their subject. */
export const SUBJECT = "knowledge graph";

/**
 * What every part of one knowledge graph (entities, facts, queries, import) works on: the
 * database and its prepared statements, the input schemas, the limits, the clock, and the
 * access of the identity the graph is scoped to.
 */
export class KgContext {
  readonly #keySeparator: string;

  constructor(
    readonly db: SqlDatabase,
    readonly limits: Readonly<KnowledgeGraphLimits>,
    readonly schemas: KnowledgeGraphSchemas,
    readonly statements: KgStatements,
    readonly access: PalaceAccess,
    readonly now: () => Date,
  ) {
    this.#keySeparator = KEY_SEPARATORS[db.dialect.name];
  }

  /** The key an entity or alias named `name` in `wing` is stored under (see `wingKey`). */
  wingKey(wing: string, name: string): string {
    return wingKey(wing, name, this.#keySeparator);
  }

  /** `value` checked by `schema`; a `ValidationError` naming the field under `path` otherwise. */
  parse<Schema extends z.ZodType>(
    schema: Schema,
    value: unknown,
    path: (string | number)[],
  ): z.output<Schema> {
    return parseInput(schema, value, SUBJECT, path);
  }

  /** Runs `body` in one `BEGIN IMMEDIATE` transaction (a savepoint inside the caller's). */
  write<Result>(body: () => Result): Result {
    return this.db.transaction(body).immediate();
  }

  nowIso(): string {
    return this.now().toISOString();
  }

  nowTime(): FactTime {
    const text = this.nowIso();
    return { text, ms: Date.parse(text) };
  }

  time(text: string, field: string): FactTime {
    return factTime(text, field);
  }

  /** A query's row count: its `limit`, at most `maxQueryFacts`. */
  cap(limit: number | undefined): number {
    return Math.min(limit ?? this.limits.maxQueryFacts, this.limits.maxQueryFacts);
  }

  /** The wing a write goes to: the one named (which must be writable), else the caller's own. */
  writeWing(asked: string | undefined, field: string): string {
    const wing = asked ?? (this.access.isAdmin ? DEFAULT_FACT_WING : this.access.homeWing());
    if (wing === undefined) {
      throw new ValidationError(SUBJECT, [
        {
          path: field.split("."),
          message: `name the wing to write to; ${this.access.who} may write more than one wing, or none`,
        },
      ]);
    }
    this.access.assertWrite(wing, undefined, field);
    return wing;
  }

  /** The wing an imported row goes to; rows from before facts had wings go where a migration puts them. */
  importWing(asked: string | undefined, index: number): string {
    const wing = asked ?? DEFAULT_FACT_WING;
    this.access.assertWrite(wing, undefined, `rows.${index}.wing`);
    return wing;
  }

  /** The readable wings as the `@wings` parameter: a JSON array, or null for every wing. */
  readableWings(): string | null {
    const wings = this.access.wholeReadableWings();
    return wings === undefined ? null : JSON.stringify(wings);
  }
}
