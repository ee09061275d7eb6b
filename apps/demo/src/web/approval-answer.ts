import type { ApprovalDecision } from "@atrium/spec";
import { z } from "zod";

/** Longest reason a denial may give: it goes to the code and the model as one line. */
export const MAX_DENIAL_REASON_CHARS = 500;

const RUN = z
  .string({ error: "run must be the run token of the question's stream (its received event)" })
  .min(1, { error: "run must be the run token of the question's stream (its received event)" })
  .max(100, { error: "run is longer than any run token (100 characters)" });

// Strict: a misspelt field ("aproved") is an error, not a silent approval or denial.
const ANSWER = z.discriminatedUnion(
  "approved",
  [
    z.strictObject({ run: RUN, approved: z.literal(true) }),
    z.strictObject({
      run: RUN,
      approved: z.literal(false),
      reason: z
        .string({ error: "reason must be text" })
        .max(MAX_DENIAL_REASON_CHARS, {
          error: `reason is longer than ${MAX_DENIAL_REASON_CHARS} characters; shorten it`,
        })
        .optional(),
    }),
  ],
  { error: "approved must be true or false" },
);

/** A page's answer to one approval, checked. */
export interface ApprovalAnswer {
  run: string;
  decision: ApprovalDecision;
}

/**
 * Reads `POST /api/approvals/:id`'s JSON body, `{ run, approved: true }` or `{ run, approved:
 * false, reason? }`; a problem comes back as a message naming the field, for a 400.
 */
export function readApprovalAnswer(body: unknown): ApprovalAnswer | { problem: string } {
  const parsed = ANSWER.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.join(", ")}`
        : issue.message,
    );
    return {
      problem: `the answer must be { run, approved: true } or { run, approved: false, reason? }: ${issues.join("; ")}`,
    };
  }
  const { run, ...rest } = parsed.data;
  const reason = rest.approved ? undefined : rest.reason?.trim();
  return {
    run,
    decision: rest.approved ? { approved: true } : { approved: false, ...(reason ? { reason } : {}) },
  };
}
