import type { ExportPosition } from "../errors.js";

/**
 * The one shape every conversation parser produces, whatever the export looked like: a
 * conversation is an ordered list of messages, each with the source's own turn id (so evidence
 * can be traced back), who said it, and the text exactly as written.
 */

export type MessageRole = "user" | "assistant" | "other";

export interface ConversationMessage {
  /** The source's own id for the message (a uuid, a Slack `ts`, "line 12" for plain text). */
  turnId: string;
  /** A display name ("Maya", "user", "assistant"). */
  speaker: string;
  role: MessageRole;
  /** Verbatim text; never rewritten beyond dropping non-text parts (tool calls, images). */
  text: string;
  /** ISO 8601 when the source says when it was written. */
  timestamp?: string;
}

export interface Conversation {
  /** Stable across exports of the same conversation (the export's id, else the file path). */
  id: string;
  title?: string;
  messages: ConversationMessage[];
}

/** The export formats the miners read. */
export const CONVERSATION_FORMATS = [
  "claude-ai",
  "chatgpt",
  "claude-code",
  "codex",
  "slack",
  "plain-text",
] as const;
export type ConversationFormat = (typeof CONVERSATION_FORMATS)[number];

/** Where in a file something went wrong: "line 3, column 14", "$[2].chat_messages[5].sender". */
export type SourcePosition = ExportPosition;

/**
 * A part of a file the parser had to leave out (one bad conversation in an export, one bad line
 * of a JSONL transcript); the rest of the file is still mined.
 */
export interface ParseProblem {
  position: SourcePosition;
  message: string;
}

/** What a parser returns: the conversations it could read and what it skipped. */
export interface ParsedExport {
  conversations: Conversation[];
  problems: ParseProblem[];
}
