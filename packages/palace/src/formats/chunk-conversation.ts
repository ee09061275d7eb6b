import type { Conversation, ConversationMessage } from "./conversation.js";
import { splitText } from "./text-split.js";

/**
 * How a conversation becomes drawers:
 * - "turn": one drawer per message, keeping its turn id (a message longer than the cap becomes
 *   several drawers with the same turn id and `part` numbers);
 * - "exchange": a user message with the replies up to the next user message, so a question and
 *   its answer are found together; the first message's turn id, all of them in `turnIds`.
 * `position` numbers the chunks of one conversation in order, from 0.
 */
export type ConversationChunking = "turn" | "exchange";

export interface ConversationChunk {
  content: string;
  /** Set when one speaker wrote the whole chunk. */
  speaker?: string;
  turnId: string;
  /** Every message the chunk holds text of, in order. */
  turnIds: string[];
  position: number;
  /** The first message's time. */
  timestamp?: string;
  /** 1-based piece number and count when one message was cut into several chunks. */
  part?: number;
  parts?: number;
}

export function chunkConversation(
  conversation: Conversation,
  chunking: ConversationChunking,
  maxChars: number,
): ConversationChunk[] {
  const chunks: Omit<ConversationChunk, "position">[] = [];
  if (chunking === "turn") {
    for (const message of conversation.messages) chunks.push(...messageChunks(message, maxChars));
  } else {
    for (const exchange of exchanges(conversation.messages))
      chunks.push(...exchangeChunks(exchange, maxChars));
  }
  return chunks.map((chunk, position) => ({ ...chunk, position }));
}

/** A message as drawers: whole when it fits, else cut at paragraph, line, sentence, word bounds. */
function messageChunks(
  message: ConversationMessage,
  maxChars: number,
): Omit<ConversationChunk, "position">[] {
  const pieces = splitText(message.text, maxChars);
  return pieces.map((content, index) => ({
    content,
    speaker: message.speaker,
    turnId: message.turnId,
    turnIds: [message.turnId],
    ...(message.timestamp ? { timestamp: message.timestamp } : {}),
    ...(pieces.length > 1 ? { part: index + 1, parts: pieces.length } : {}),
  }));
}

/**
 * Messages grouped so each group starts at a user message (anything before the first one is a
 * group of its own). A conversation with no "user" role (people talking to each other) starts a
 * group at each message of whoever spoke first.
 */
export function exchanges(messages: readonly ConversationMessage[]): ConversationMessage[][] {
  const hasUser = messages.some((message) => message.role === "user");
  const opener = messages[0]?.speaker;
  const startsGroup = (message: ConversationMessage) =>
    hasUser ? message.role === "user" : message.speaker === opener;
  const groups: ConversationMessage[][] = [];
  for (const message of messages) {
    const current = groups[groups.length - 1];
    if (current === undefined || startsGroup(message)) groups.push([message]);
    else current.push(message);
  }
  return groups;
}

/** How a message reads inside an exchange drawer. */
function labelled(message: ConversationMessage, text: string): string {
  return `${message.speaker}: ${text}`;
}

const SEPARATOR = "\n\n";

/**
 * An exchange as drawers: whole messages packed while they fit under the cap; a message that
 * alone is too long is cut and its pieces become drawers of their own.
 */
function exchangeChunks(
  exchange: ConversationMessage[],
  maxChars: number,
): Omit<ConversationChunk, "position">[] {
  const out: Omit<ConversationChunk, "position">[] = [];
  let parts: { message: ConversationMessage; text: string }[] = [];
  let length = 0;
  const flush = () => {
    if (parts.length === 0) return;
    const first = parts[0]!.message;
    const speakers = new Set(parts.map((part) => part.message.speaker));
    out.push({
      content: parts.map((part) => part.text).join(SEPARATOR),
      ...(speakers.size === 1 ? { speaker: first.speaker } : {}),
      turnId: first.turnId,
      turnIds: [...new Set(parts.map((part) => part.message.turnId))],
      ...(first.timestamp ? { timestamp: first.timestamp } : {}),
    });
    parts = [];
    length = 0;
  };
  for (const message of exchange) {
    const text = labelled(message, message.text);
    const added = (parts.length > 0 ? SEPARATOR.length : 0) + text.length;
    if (length + added <= maxChars) {
      parts.push({ message, text });
      length += added;
      continue;
    }
    flush();
    if (text.length <= maxChars) {
      parts.push({ message, text });
      length = text.length;
      continue;
    }
    const pieces = splitText(text, maxChars);
    pieces.forEach((piece, index) => {
      out.push({
        content: piece,
        speaker: message.speaker,
        turnId: message.turnId,
        turnIds: [message.turnId],
        ...(message.timestamp ? { timestamp: message.timestamp } : {}),
        part: index + 1,
        parts: pieces.length,
      });
    });
  }
  flush();
  return out;
}
