import { ExportParseError } from "../errors.js";
import type { ConversationMessage, ParsedExport } from "./conversation.js";
import { readJsonLines } from "./json-lines.js";
import { isRecord, type JsonRecord, stringField } from "./json-shape.js";
import { toIsoTimestamp } from "./timestamps.js";

/**
 * Codex CLI session rollouts (`~/.codex/sessions/.../rollout-<time>-<id>.jsonl`). Current files
 * wrap every line as `{timestamp, type, payload}`: "session_meta" carries the session id,
 * "response_item" with `payload.type` "message" carries a user or assistant message whose
 * `content[]` has `input_text` / `output_text` parts. Older files start with a bare
 * `{id, timestamp, instructions}` line and hold the response items unwrapped. Reasoning,
 * function calls and their output, event echoes and the context Codex injects into user turns
 * (`<environment_context>`, `<user_instructions>`, AGENTS.md) are left out.
 */
export function parseCodexRollout(text: string, fallbackId: string): ParsedExport {
  const { lines, problems } = readJsonLines(text);
  let sessionId: string | undefined;
  const messages: ConversationMessage[] = [];
  for (const { line, value } of lines) {
    if (!isRecord(value)) {
      problems.push({ position: `line ${line}`, message: "expected a JSON object; the line was skipped" });
      continue;
    }
    const type = stringField(value, "type");
    if (type === "session_meta") {
      if (isRecord(value.payload)) sessionId ??= stringField(value.payload, "id");
      continue;
    }
    if (type === undefined && line === lines[0]?.line && typeof value.id === "string") {
      sessionId ??= value.id;
      continue;
    }
    const item = type === "response_item" ? value.payload : type === "message" ? value : undefined;
    if (!isRecord(item) || stringField(item, "type") !== "message") continue;
    const role = stringField(item, "role");
    if (role !== "user" && role !== "assistant") continue;
    const text = messageText(item);
    if (text === "" || (role === "user" && isInjectedContext(text))) continue;
    const timestamp = toIsoTimestamp(value.timestamp ?? item.timestamp);
    messages.push({
      turnId: stringField(item, "id") ?? `${sessionId ?? fallbackId}#L${line}`,
      speaker: role,
      role,
      text,
      ...(timestamp ? { timestamp } : {}),
    });
  }
  if (lines.length === 0) {
    throw new ExportParseError(problems[0]?.position ?? "line 1", "no JSON entry in the rollout");
  }
  return { conversations: [{ id: sessionId ?? fallbackId, messages }], problems };
}

function messageText(item: JsonRecord): string {
  if (!Array.isArray(item.content)) return "";
  return item.content
    .filter(
      (part) =>
        isRecord(part) &&
        (part.type === "input_text" || part.type === "output_text" || part.type === "text") &&
        typeof part.text === "string",
    )
    .map((part) => (part as { text: string }).text.trim())
    .filter((part) => part !== "")
    .join("\n\n");
}

const INJECTED_PREFIXES = ["<environment_context>", "<user_instructions>", "# AGENTS.md instructions"];

function isInjectedContext(text: string): boolean {
  return INJECTED_PREFIXES.some((prefix) => text.startsWith(prefix));
}
