import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "@atrium/spec";
import { z } from "zod";
import { SCRIPTED_FILE_MAX_BYTES } from "../limits.js";
import { isRetryableStatus, ProviderError } from "./model-error.js";
import { ScriptedModel, type ScriptedReply } from "./scripted-model.js";

const usageSchema = z.strictObject({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
});

const replySchema = z.union([
  z.string(),
  z.strictObject({
    content: z.string(),
    toolCalls: z
      .array(z.strictObject({ id: z.string().optional(), name: z.string().min(1), input: z.unknown() }))
      .optional(),
    usage: usageSchema.optional(),
    finishReason: z.enum(["stop", "length", "tool-calls", "content-filter", "error", "other"]).optional(),
  }),
  z.strictObject({
    error: z.strictObject({ message: z.string(), status: z.number().int().min(100).max(599).optional() }),
  }),
]);

const fileSchema = z.union([z.array(replySchema), z.strictObject({ replies: z.array(replySchema) })]);

export const SCRIPTED_FILE_FORMAT =
  'a JSON array (or { "replies": [...] }) of replies: "text", { "content": "text", "toolCalls"?: [{ "name", "input", "id"? }], "usage"?: { "inputTokens", "outputTokens" } }, or { "error": { "message", "status"? } } to rehearse a provider failure';

/**
 * A `ScriptedModel` whose replies come from a JSON file (the `scripted:<path>` model string), for
 * the offline demo and CLI tests. An `error` entry throws a provider error with that status.
 */
export function scriptedModelFromFile(path: string, id = `scripted:${path}`): ScriptedModel {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > SCRIPTED_FILE_MAX_BYTES) {
      throw new ConfigError(
        `Scripted replies file ${path} has ${size} bytes, more than the ${SCRIPTED_FILE_MAX_BYTES} allowed; split the script`,
      );
    }
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`Cannot read the scripted replies file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `Scripted replies file ${path} is not valid JSON (${(error as Error).message}); expected ${SCRIPTED_FILE_FORMAT}`,
      {
        cause: error,
      },
    );
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
    throw new ConfigError(
      `Scripted replies file ${path} is malformed${where}: ${issue?.message}; expected ${SCRIPTED_FILE_FORMAT}`,
    );
  }
  const replies = Array.isArray(parsed.data) ? parsed.data : parsed.data.replies;
  return new ScriptedModel(
    replies.map((reply): ScriptedReply => {
      if (typeof reply === "string" || !("error" in reply)) return reply;
      const { message, status } = reply.error;
      return new ProviderError(id, `${id} answered${status ? ` HTTP ${status}` : ""}: ${message}`, {
        status,
        isRetryable: status !== undefined && isRetryableStatus(status),
      });
    }),
    { id },
  );
}
