import { z } from "zod";
import { ContinuationError } from "./continuation-codec.js";

const outcome = z.union([
  z.object({ ok: z.literal(true), json: z.string().optional() }),
  z.object({ ok: z.literal(false), name: z.string(), message: z.string() }),
]);

const journal = z.object({
  toolCalls: z.array(
    z.object({ id: z.string().optional(), name: z.string(), input: z.string(), outcome: outcome.optional() }),
  ),
  pending: z.number().int().nonnegative().optional(),
  tape: z.unknown().optional(),
});

const usage = z.object({ inputTokens: z.number(), outputTokens: z.number() });

/**
 * What a suspended code agent's run is, saved: enough for another process to rebuild the sandbox
 * by replaying every step's code with its journal (`replay`, in the order they ran since the
 * sandbox was last reset), then to go on with the step that waits for an approval (`pending`).
 */
export const codeRunState = z.object({
  kind: z.literal("code-agent"),
  /** Names this suspension: a continuation is resumed once. */
  id: z.string().uuid(),
  /** The SHA-256 of the agent's tools (names, input schemas): a resume needs the same ones. */
  tools: z.string().regex(/^[0-9a-f]{64}$/),
  runId: z.string(),
  task: z.string(),
  /** The sandbox's language: a run resumes in an executor of the same one. */
  language: z.enum(["javascript", "python", "bash"]),
  /** The agent's memory up to the step before the pending one (`AgentMemory.toJSON()`). */
  memory: z.object({ version: z.literal(1), steps: z.array(z.unknown()) }),
  /** Variables the host set in the sandbox before the replayed steps ran. */
  variables: z.record(z.string(), z.unknown()).optional(),
  replay: z.array(z.object({ code: z.string(), journal })),
  /** A sandbox saved whole at the suspension (a micro-VM), instead of steps to replay. */
  snapshot: z.object({ path: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
  pending: z.object({
    step: z.number().int().positive(),
    modelOutput: z.string(),
    code: z.string(),
    journal,
    usage,
    startedAt: z.number(),
    request: z.object({ toolCallId: z.string(), toolName: z.string(), input: z.unknown() }),
  }),
  maxSteps: z.number().int().positive(),
  stepCount: z.number().int().nonnegative(),
  usage,
  suspendedAt: z.string(),
});

export type CodeRunState = z.infer<typeof codeRunState>;

/** The state a continuation carried, checked: a continuation of another kind or shape is refused. */
export function parseCodeRunState(value: unknown): CodeRunState {
  const parsed = codeRunState.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ContinuationError(
    `the continuation's state is not a suspended code agent run: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
  );
}
