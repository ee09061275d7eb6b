import { z } from "zod";
import { PalaceError } from "../errors.js";

/** A wing, or some rooms of it. */
export type WingGrant = string | { wing: string; rooms: readonly string[] };

/**
 * What an identity may do in a palace. Nothing is granted unless named: a token, a demo user or
 * an API caller with `{}` sees an empty palace and can file nothing. `admin` is every wing, read
 * and write, and the palace-wide operations (import, settings, the palace's own identity text).
 * Read and write are separate: a write grant alone files and edits without listing or searching.
 */
export interface PalaceGrants {
  admin?: boolean;
  read?: readonly WingGrant[];
  write?: readonly WingGrant[];
}

const name = (what: string) =>
  z
    .string({ error: `must be text (${what})` })
    .min(1, { error: `is empty; give ${what}` })
    .max(512, { error: `is longer than 512 characters (${what})` })
    .refine((value) => !/[\u0000-\u001f]/.test(value), {
      error: `must not hold control characters (${what})`,
    });

const wingGrant = z.union(
  [
    name("a wing name"),
    z.strictObject({
      wing: name("a wing name"),
      rooms: z.array(name("a room name"), { error: "must be a list of room names" }).min(1, {
        error: "must name at least one room (grant the wing as a plain string for all of it)",
      }),
    }),
  ],
  { error: 'each grant is a wing name ("alice") or {"wing": "team", "rooms": ["standup"]}' },
);

/** The grants schema (tokens files, the CLI, API callers all go through it). */
export const palaceGrantsSchema = z.strictObject({
  admin: z.boolean({ error: "must be true or false (admin)" }).optional(),
  read: z.array(wingGrant, { error: "must be a list of wings (read)" }).optional(),
  write: z.array(wingGrant, { error: "must be a list of wings (write)" }).optional(),
});

/** Checks grants from outside (a tokens file, a request); errors name `where` and the field. */
export function parsePalaceGrants(value: unknown, where: string): PalaceGrants {
  const parsed = palaceGrantsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.length ? `.${issue.path.join(".")}` : "";
  throw new PalaceError(
    "palace/invalid-input",
    `${where}${path}: ${issue?.message ?? "invalid"}; expected {"read": ["alice"], "write": ["alice"]} or {"admin": true}`,
  );
}
