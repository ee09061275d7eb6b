import { ExportParseError } from "../errors.js";
import type { ConversationMessage, ParsedExport } from "./conversation.js";
import { readJsonLines } from "./json-lines.js";
import { isRecord, type JsonRecord, stringField } from "./json-shape.js";
import { toIsoTimestamp } from "./timestamps.js";

/**
 * Claude Code session transcripts (`~/.claude/projects/<project>/<session>.jsonl`): one JSON
 * entry per line, `type` "user" | "assistant" with `message.content` a string or content blocks,
 * plus bookkeeping entries ("summary", "system", file snapshots). What a person would call the
 * conversation is kept: the user's words and the assistant's text. Tool calls, tool results,
 * thinking, slash-command echoes, meta entries and sub-agent (sidechain) traffic are left out.
 * One streamed assistant reply spans several lines sharing `message.id`; they become one turn.
 */
export function parseClaudeCodeTranscript(text: string, fallbackId: string): ParsedExport {
  const { lines, problems } = readJsonLines(text);
  let sessionId: string | undefined;
  let title: string | undefined;
  const messages: ConversationMessage[] = [];
  let lastAssistantId: string | undefined;
  for (const { line, value } of lines) {
    if (!isRecord(value)) {
      problems.push({ position: `line ${line}`, message: "expected a JSON object; the line was skipped" });
      continue;
    }
    const type = stringField(value, "type");
    if (type === "summary") {
      title ??= stringField(value, "summary")?.trim() || undefined;
      continue;
    }
    if (type !== "user" && type !== "assistant") continue;
    sessionId ??= stringField(value, "sessionId");
    if (value.isSidechain === true || value.isMeta === true) continue;
    if (!isRecord(value.message)) {
      problems.push({
        position: `line ${line}`,
        message: `a "${type}" entry without a "message" object; skipped`,
      });
      continue;
    }
    const text = entryText(value.message, type);
    const messageId = stringField(value.message, "id");
    if (text === "") continue;
    const previous = messages[messages.length - 1];
    if (
      type === "assistant" &&
      previous?.role === "assistant" &&
      messageId &&
      messageId === lastAssistantId
    ) {
      previous.text = `${previous.text}\n\n${text}`;
      continue;
    }
    lastAssistantId = type === "assistant" ? messageId : undefined;
    const timestamp = toIsoTimestamp(value.timestamp);
    messages.push({
      turnId: stringField(value, "uuid") ?? `${fallbackId}#L${line}`,
      speaker: type,
      role: type,
      text,
      ...(timestamp ? { timestamp } : {}),
    });
  }
  if (lines.length === 0) {
    throw new ExportParseError(problems[0]?.position ?? "line 1", "no JSON entry in the transcript");
  }
  return {
    conversations: [{ id: sessionId ?? fallbackId, ...(title ? { title } : {}), messages }],
    problems,
  };
}

/** Prefixes of user "messages" that Claude Code writes itself (slash-command echoes, interrupts). */
const GENERATED_USER_TEXT = [
  "<command-name>",
  "<command-message>",
  "<command-args>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<system-reminder>",
  "[Request interrupted by user",
];

function entryText(message: JsonRecord, type: "user" | "assistant"): string {
  const content = message.content;
  let text: string;
  if (typeof content === "string") text = content.trim();
  else if (Array.isArray(content)) {
    text = content
      .filter((block) => isRecord(block) && block.type === "text" && typeof block.text === "string")
      .map((block) => (block as { text: string }).text.trim())
      .filter((part) => part !== "")
      .join("\n\n");
  } else text = "";
  if (type === "user" && GENERATED_USER_TEXT.some((prefix) => text.startsWith(prefix))) return "";
  return text;
}
