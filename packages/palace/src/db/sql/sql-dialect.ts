/**
 * Where the palace's SQL differs between SQLite and PostgreSQL, as the few fragments its modules
 * splice in. Everything else is written once, in what both read alike (`COALESCE`, `ON CONFLICT
 * ... DO UPDATE`, `UPDATE ... FROM`).
 *
 * A list travels as one parameter holding a JSON array (`JSON.stringify(ids)`): one statement
 * for any length, prepared once.
 */
export interface SqlDialect {
  readonly name: "sqlite" | "postgres";
  /** A subquery of the text values of the JSON array `param` holds (`?` or `@name`). */
  jsonTexts(param: string): string;
  /** The same for a JSON array of integers, as integers. */
  jsonIntegers(param: string): string;
  /** The entries of a JSON object of integers `param` holds, as `(key text, value integer)` rows. */
  jsonIntegerEntries(param: string): string;
}

export const SQLITE_DIALECT: SqlDialect = {
  name: "sqlite",
  jsonTexts: (param) => `SELECT value FROM json_each(${param})`,
  jsonIntegers: (param) => `SELECT value FROM json_each(${param})`,
  jsonIntegerEntries: (param) => `SELECT key, value FROM json_each(${param})`,
};

export const POSTGRES_DIALECT: SqlDialect = {
  name: "postgres",
  jsonTexts: (param) => `SELECT j.value FROM json_array_elements_text(CAST(${param} AS json)) AS j(value)`,
  jsonIntegers: (param) =>
    `SELECT CAST(j.value AS bigint) FROM json_array_elements_text(CAST(${param} AS json)) AS j(value)`,
  jsonIntegerEntries: (param) =>
    `SELECT j.key, CAST(j.value AS bigint) AS value FROM json_each_text(CAST(${param} AS json)) AS j(key, value)`,
};
