import { createRequire } from "node:module";
import pg from "pg";

const { escapeLiteral } = pg;
/** pg's own conversion of a parameter to its text (arrays to `{...}`, dates, JSON). */
const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils") as {
  prepareValue(value: unknown): unknown;
};
/**
 * The palace's SQL names parameters as SQLite does (`?` in order, or `@name`); PostgreSQL wants
 * `$1`, `$2`, ... This rewrites them, leaving quoted text, quoted names and comments alone, and
 * says how to order the values: by position, or by the names of one object.
 */
export interface PgPlaceholders {
  sql: string;
  /** For `@name` parameters: the name behind each `$n`, in order. Empty for `?`. */
  names: string[];
  /** The SQL around the parameters: `segments[0] $slots[0] segments[1] ...`. */
  segments: string[];
  /** The 0-based value index of each parameter place. */
  slots: number[];
}

export function toPgPlaceholders(sql: string): PgPlaceholders {
  let out = "";
  let positional = 0;
  const names: string[] = [];
  const segments: string[] = [];
  const slots: number[] = [];
  let segmentStart = 0;
  const place = (index: number) => {
    segments.push(out.slice(segmentStart));
    slots.push(index);
    out += `$${index + 1}`;
    segmentStart = out.length;
  };
  let at = 0;
  while (at < sql.length) {
    const char = sql[at] as string;
    const skipTo = (end: string, from: number) => {
      const stop = sql.indexOf(end, from);
      return stop === -1 ? sql.length : stop + end.length;
    };
    let next = at + 1;
    if (char === "'" || char === '"') next = skipTo(char, at + 1);
    else if (char === "-" && sql[at + 1] === "-") next = skipTo("\n", at);
    else if (char === "/" && sql[at + 1] === "*") next = skipTo("*/", at + 2);
    else if (char === "?") {
      place(positional++);
      at = next;
      continue;
    } else if (char === "@" && /[A-Za-z_]/.test(sql[at + 1] ?? "")) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(at + 1))?.[0] as string;
      let index = names.indexOf(name);
      if (index === -1) index = names.push(name) - 1;
      place(index);
      at += 1 + name.length;
      continue;
    }
    out += sql.slice(at, next);
    at = next;
  }
  if (positional > 0 && names.length > 0) {
    throw new Error(`SQL mixes ? and @name parameters: ${sql.slice(0, 120)}`);
  }
  segments.push(out.slice(segmentStart));
  return { sql: out, names, segments, slots };
}

/** The values for `$1..$n`: the arguments as given, or one object's values by name. */
export function pgValues(placeholders: PgPlaceholders, args: readonly unknown[]): unknown[] {
  if (placeholders.names.length === 0) return args.map(toPgValue);
  const bound = (args[0] ?? {}) as Record<string, unknown>;
  return placeholders.names.map((name) => {
    if (!(name in bound)) throw new RangeError(`Missing named parameter "${name}"`);
    return toPgValue(bound[name]);
  });
}

/**
 * The statement with its values written in as literals, for a script of several statements sent
 * at once (a simple query takes no parameters). Literals are quoted by pg's own `escapeLiteral`,
 * after pg's own `prepareValue` (arrays, dates), so a value reads as the parameter would.
 */
export function inlineSql(placeholders: PgPlaceholders, values: readonly unknown[]): string {
  let sql = placeholders.segments[0] as string;
  placeholders.slots.forEach((slot, at) => {
    sql += pgLiteral(values[slot]) + (placeholders.segments[at + 1] as string);
  });
  return sql;
}

function pgLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  const prepared = value instanceof Uint8Array ? value : prepareValue(value);
  if (prepared === null) return "NULL";
  // decode() reads the same whatever standard_conforming_strings says.
  if (prepared instanceof Uint8Array) return `decode('${Buffer.from(prepared).toString("hex")}', 'hex')`;
  const text = String(prepared);
  // A simple query is a C string: a NUL would end it. PostgreSQL's text cannot hold one anyway.
  if (text.includes("\0")) throw new NulInTextError();
  return escapeLiteral(text);
}

/** Text holding U+0000, which PostgreSQL cannot store. */
export class NulInTextError extends Error {
  constructor() {
    super("PostgreSQL cannot keep the NUL character (U+0000) in text");
  }
}

/** better-sqlite3 takes bigints and Buffers as they are; pg wants bigints as text. */
function toPgValue(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value === undefined) return null;
  return value;
}
