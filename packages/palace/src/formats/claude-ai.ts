import { ExportParseError } from "../errors.js";
import type { Conversation, ConversationMessage, ParsedExport, ParseProblem } from "./conversation.js";
import { isRecord, jsonPath, jsonType, stringField } from "./json-shape.js";
import { toIsoTimestamp } from "./timestamps.js";

/**
 * Claude.ai's data export (`conversations.json`): an array of conversations, each with `uuid`,
 * `name` and `chat_messages` (`sender` "human" | "assistant", `text`, and `content` blocks of
 * which only the `text` ones are words someone wrote). A single conversation object is accepted too.
 */
export function parseClaudeAiExport(value: unknown): ParsedExport {
  const items = Array.isArray(value)
    ? value
    : isRecord(value) && "chat_messages" in value
      ? [value]
      : undefined;
  if (items === undefined) {
    throw new ExportParseError(
      "$",
      `expected an array of conversations with "chat_messages", got ${jsonType(value)}`,
    );
  }
  const conversations: Conversation[] = [];
  const problems: ParseProblem[] = [];
  items.forEach((item, index) => {
    const path = Array.isArray(value) ? jsonPath("$", index) : "$";
    if (!isRecord(item) || !Array.isArray(item.chat_messages)) {
      problems.push({ position: path, message: 'not a conversation (no "chat_messages" array); skipped' });
      return;
    }
    const id = stringField(item, "uuid") ?? `claude-ai-${index}`;
    const messages: ConversationMessage[] = [];
    item.chat_messages.forEach((raw, messageIndex) => {
      const messagePath = jsonPath(jsonPath(path, "chat_messages"), messageIndex);
      const message = readMessage(raw, `${id}:${messageIndex}`);
      if (typeof message === "string") problems.push({ position: messagePath, message });
      else if (message !== undefined) messages.push(message);
    });
    const title = stringField(item, "name")?.trim();
    conversations.push({ id, ...(title ? { title } : {}), messages });
  });
  return { conversations, problems };
}

/** The message, undefined when it holds no text, or a problem description. */
function readMessage(raw: unknown, fallbackId: string): ConversationMessage | string | undefined {
  if (!isRecord(raw)) return `expected a message object, got ${jsonType(raw)}; skipped`;
  const sender = stringField(raw, "sender");
  if (sender !== "human" && sender !== "assistant") {
    return `unknown sender ${JSON.stringify(raw.sender)} (expected "human" or "assistant"); skipped`;
  }
  const text = messageText(raw);
  if (text === "") return undefined;
  const timestamp = toIsoTimestamp(raw.created_at);
  const role = sender === "human" ? "user" : "assistant";
  return {
    turnId: stringField(raw, "uuid") ?? fallbackId,
    speaker: role,
    role,
    text,
    ...(timestamp ? { timestamp } : {}),
  };
}

function messageText(raw: Record<string, unknown>): string {
  if (Array.isArray(raw.content)) {
    const parts = raw.content
      .filter((block) => isRecord(block) && block.type === "text" && typeof block.text === "string")
      .map((block) => (block as { text: string }).text.trim())
      .filter((text) => text !== "");
    if (parts.length > 0) return parts.join("\n\n");
  }
  return (stringField(raw, "text") ?? "").trim();
}
