import { ValidationError } from "@atrium/spec";
import { z } from "zod";
import type { KnowledgeGraphLimits } from "../limits.js";
import { CONTROL_CHARACTERS, cleanName, normalizePredicate, PREDICATE_PATTERN } from "./kg-names.js";
import { parseFactTime } from "./kg-time.js";

/**
 * The zod schemas every public entry point of the knowledge graph parses its input with. They
 * depend on the limits, so one set is built per graph. Unknown keys are refused (a "valid_from"
 * written for "validFrom" must not be silently dropped) and JSON `null` counts as absent, since
 * MCP clients send it for fields they leave out.
 */

function absentAsUndefined<Schema extends z.ZodType>(schema: Schema) {
  return schema.nullish().transform((value) => value ?? undefined);
}

function nameSchema(what: string, maxChars: number) {
  return (
    z
      .string({ error: `${what} must be a string` })
      .transform(cleanName)
      .refine((value) => value.length > 0, { error: `${what} is empty; give a name` })
      .refine((value) => value.length <= maxChars, {
        error: `${what} is longer than ${maxChars} characters; shorten it`,
      })
      .refine((value) => !CONTROL_CHARACTERS.test(value), {
        error: `${what} contains control characters; remove them`,
      })
      // UTF-8 (SQLite, exports) cannot hold a lone surrogate: stored, it would turn into U+FFFD.
      .refine((value) => !/[\uD800-\uDFFF]/u.test(value), {
        error: `${what} holds a lone surrogate, which UTF-8 cannot store; send well-formed Unicode`,
      })
  );
}

function predicateSchema(maxChars: number) {
  return z
    .string({ error: "predicate must be a string" })
    .transform(normalizePredicate)
    .refine((value) => value.length > 0, { error: "predicate is empty; give a relation such as lives_in" })
    .refine((value) => value.length <= maxChars, {
      error: `predicate is longer than ${maxChars} characters; shorten it`,
    })
    .refine((value) => PREDICATE_PATTERN.test(value), {
      error:
        "predicate may hold only letters, digits, '_', '.' and ':' (words joined by underscores, e.g. lives_in)",
    });
}

/** A wing name, exactly as drawers are filed under it (not normalized: wings are identifiers). */
const wingSchema = absentAsUndefined(
  z
    .string({ error: "wing must be a string" })
    .refine((value) => value.trim().length > 0, { error: "wing is empty; give a wing name" })
    .refine((value) => value.length <= 512, { error: "wing is longer than 512 characters" })
    .refine((value) => !CONTROL_CHARACTERS.test(value), {
      error: "wing contains control characters; remove them",
    }),
);

const timeSchema = z.string({ error: "must be an ISO 8601 time string" }).superRefine((value, context) => {
  try {
    parseFactTime(value, "time");
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    context.addIssue({ code: "custom", message: error.issues[0]?.message ?? "is not an ISO 8601 time" });
  }
});

const limitSchema = z
  .number({ error: "limit must be a number" })
  .int({ error: "limit must be a whole number" })
  .positive({ error: "limit must be at least 1" });

export function knowledgeGraphSchemas(limits: Readonly<KnowledgeGraphLimits>) {
  const entityName = (what: string) => nameSchema(what, limits.maxEntityNameChars);
  const entityType = absentAsUndefined(nameSchema("type", limits.maxEntityTypeChars));
  const predicate = predicateSchema(limits.maxPredicateChars);
  const sourceDrawerId = absentAsUndefined(
    z
      .string({ error: "sourceDrawerId must be a string" })
      .min(1, { error: "sourceDrawerId is empty; leave it out instead" })
      .max(limits.maxSourceIdChars, {
        error: `sourceDrawerId is longer than ${limits.maxSourceIdChars} characters`,
      })
      // PostgreSQL's text cannot hold NUL; refused on both stores so a graph moves between them.
      .refine((value) => !value.includes("\u0000"), {
        error: "sourceDrawerId holds a NUL character (U+0000), which no drawer id has; remove it",
      }),
  );
  const confidence = absentAsUndefined(
    z
      .number({ error: "confidence must be a number" })
      .min(0, { error: "confidence must be between 0 and 1" })
      .max(1, { error: "confidence must be between 0 and 1" }),
  );
  const aliases = z
    .array(entityName("alias"), { error: "aliases must be an array of names" })
    .max(limits.maxEntityAliases, { error: `at most ${limits.maxEntityAliases} aliases per entity` });

  const fact = z.strictObject({
    wing: wingSchema,
    subject: entityName("subject"),
    predicate,
    object: entityName("object"),
    validFrom: absentAsUndefined(timeSchema),
    validTo: absentAsUndefined(timeSchema),
    sourceDrawerId,
    confidence,
    subjectType: absentAsUndefined(nameSchema("subjectType", limits.maxEntityTypeChars)),
    objectType: absentAsUndefined(nameSchema("objectType", limits.maxEntityTypeChars)),
  });

  const triple = z.strictObject({
    id: z.string({ error: "id must be a string" }).regex(/^t_[0-9a-f]{24}$/, {
      error: "id must be 't_' followed by 24 lowercase hex digits, as the graph writes them",
    }),
    wing: wingSchema,
    subject: entityName("subject"),
    predicate,
    object: entityName("object"),
    validFrom: absentAsUndefined(timeSchema),
    validTo: absentAsUndefined(timeSchema),
    sourceDrawerId,
    confidence,
    createdAt: timeSchema,
  });

  return {
    entityName,
    predicate,
    time: timeSchema,
    wing: wingSchema,
    entity: z.strictObject({
      wing: wingSchema,
      name: entityName("name"),
      type: entityType,
      aliases: absentAsUndefined(aliases),
    }),
    fact,
    addOptions: z.strictObject({
      onConflict: absentAsUndefined(
        z.enum(["report", "invalidate", "keep-both"], {
          error: 'onConflict must be "report", "invalidate" or "keep-both"',
        }),
      ),
    }),
    tripleId: triple.shape.id,
    factTarget: z.strictObject({ subject: entityName("subject"), predicate, object: entityName("object") }),
    invalidateOptions: z.strictObject({ at: absentAsUndefined(timeSchema), wing: wingSchema }),
    query: z.strictObject({
      wing: wingSchema,
      subject: absentAsUndefined(entityName("subject")),
      predicate: absentAsUndefined(predicate),
      object: absentAsUndefined(entityName("object")),
      asOf: absentAsUndefined(timeSchema),
      limit: absentAsUndefined(limitSchema),
    }),
    neighboursOptions: z.strictObject({ asOf: absentAsUndefined(timeSchema), wing: wingSchema }),
    entityOptions: z.strictObject({ wing: wingSchema }),
    timelineOptions: z.strictObject({ limit: absentAsUndefined(limitSchema), wing: wingSchema }),
    depth: z
      .number({ error: "depth must be a number" })
      .int({ error: "depth must be a whole number" })
      .min(1, { error: "depth must be at least 1" })
      .max(limits.maxTraversalHops, {
        error: `depth is at most ${limits.maxTraversalHops} (the maxTraversalHops limit)`,
      }),
    limit: limitSchema,
    declareOptions: z.strictObject({
      singleValued: z.boolean({ error: "singleValued must be true or false" }),
    }),
    row: z.discriminatedUnion(
      "kind",
      [
        z.strictObject({
          kind: z.literal("kg-entity"),
          wing: wingSchema,
          name: entityName("name"),
          type: entityType,
          aliases,
          createdAt: timeSchema,
        }),
        z.strictObject({
          kind: z.literal("kg-predicate"),
          name: predicate,
          singleValued: z.boolean({ error: "singleValued must be true or false" }),
        }),
        triple.extend({ kind: z.literal("kg-triple") }),
      ],
      { error: 'kind must be "kg-entity", "kg-predicate" or "kg-triple"' },
    ),
  };
}

export type KnowledgeGraphSchemas = ReturnType<typeof knowledgeGraphSchemas>;

/**
 * `value` parsed by `schema`, or a `ValidationError` whose message names `subject` and every
 * offending field (prefixed by `path`, e.g. ["rows", 3]).
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  subject: string,
  path: (string | number)[] = [],
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(
    subject,
    result.error.issues.map((issue) => ({
      path: [...path, ...issue.path.map((key) => (typeof key === "number" ? key : String(key)))],
      message: issue.message,
    })),
  );
}
