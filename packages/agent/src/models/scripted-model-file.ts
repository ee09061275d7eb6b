import { readFileSync, statSync } from "node:fs";
import { ConfigError } from "@atrium/spec";
import { z } from "zod";
import { DEFAULT_MODEL_LIMITS } from "../limits.js";
import { isRetryableStatus, ProviderError } from "./model-error.js";
import { ScriptedModel, type ScriptedReply } from "./scripted-model.js";

const usageSchema = z.strictObject({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
});

const assistantReplySchema = z.strictObject({
  content: z.string(),
  toolCalls: z
    .array(z.strictObject({ id: z.string().optional(), name: z.string().min(1), input: z.unknown() }))
    .optional(),
  usage: usageSchema.optional(),
  finishReason: z.enum(["stop", "length", "tool-calls", "content-filter", "error", "other"]).optional(),
});

const errorReplySchema = z.strictObject({
  error: z.strictObject({ message: z.string(), status: z.number().int().min(100).max(599).optional() }),
});

const fileSchema = z.union([z.array(z.unknown()), z.strictObject({ replies: z.array(z.unknown()) })]);

export const SCRIPTED_FILE_FORMAT =
  'a JSON array (or { "replies": [...] }) of replies: "text", { "content": "text", "toolCalls"?: [{ "name", "input", "id"? }], "usage"?: { "inputTokens", "outputTokens" } }, or { "error": { "message", "status"? } } to rehearse a provider failure';

/**
 * A `ScriptedModel` whose replies come from a JSON file (the `scripted:<path>` model string), for
 * the offline demo and CLI tests. An `error` entry throws a provider error with that status.
 */
export function scriptedModelFromFile(path: string, id = `scripted:${path}`): ScriptedModel {
  const json = readJson(path);
  const malformed = (where: string, problem: string) =>
    new ConfigError(
      `Scripted replies file ${path} is malformed${where}: ${problem}; expected ${SCRIPTED_FILE_FORMAT}`,
    );
  const file = fileSchema.safeParse(json);
  if (!file.success) throw malformed("", 'the top level is neither an array nor { "replies": [...] }');
  const entries = Array.isArray(file.data) ? file.data : file.data.replies;
  return new ScriptedModel(
    entries.map((entry, index): ScriptedReply => {
      if (typeof entry === "string") return entry;
      // Pick the schema by shape, so that the message names the wrong field of that shape.
      const isError = entry !== null && typeof entry === "object" && "error" in entry;
      const parsed = (isError ? errorReplySchema : assistantReplySchema).safeParse(entry);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = [`reply ${index + 1}`, ...(issue?.path ?? []).map(String)].join(".");
        throw malformed(` at ${where}`, issue?.message ?? "invalid");
      }
      if (!("error" in parsed.data)) return parsed.data;
      const { message, status } = parsed.data.error;
      return new ProviderError(id, `${id} answered${status ? ` HTTP ${status}` : ""}: ${message}`, {
        status,
        isRetryable: status !== undefined && isRetryableStatus(status),
      });
    }),
    { id },
  );
}

function readJson(path: string): unknown {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > DEFAULT_MODEL_LIMITS.maxScriptedFileBytes) {
      throw new ConfigError(
        `Scripted replies file ${path} has ${size} bytes, more than the ${DEFAULT_MODEL_LIMITS.maxScriptedFileBytes} allowed; split the script`,
      );
    }
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`Cannot read the scripted replies file ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (looksBinary(text)) {
    throw new ConfigError(
      `Scripted replies file ${path} is a binary file (it starts ${quoteStart(text)}), not JSON; expected ${SCRIPTED_FILE_FORMAT}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text around the error raw; the start of the file, escaped and
    // cut, says as much without writing control characters to the user's terminal.
    const reason = (error as Error).message.split(",")[0]!.replace(/[^\x20-\x7e]/g, "?");
    throw new ConfigError(
      `Scripted replies file ${path} is not valid JSON (${reason}; it starts ${quoteStart(text)}); expected ${SCRIPTED_FILE_FORMAT}`,
      { cause: error },
    );
  }
}

/** NUL bytes or invalid UTF-8 (decoded as U+FFFD) in the first kilobyte: not a text file. */
function looksBinary(text: string): boolean {
  const head = text.slice(0, 1024);
  return head.includes("\u0000") || (head.match(/\uFFFD/g)?.length ?? 0) > 2;
}

/** How much of a bad file an error message quotes. */
const QUOTED_START_CHARS = 40;

/** The first characters of `text` as a JSON string literal: printable, escaped, at most 40. */
function quoteStart(text: string): string {
  const start = text.slice(0, QUOTED_START_CHARS);
  const quoted = JSON.stringify(start).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return text.length > start.length ? `${quoted}…` : quoted;
}
