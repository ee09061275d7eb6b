import { ExportParseError } from "../errors.js";
import type { ConversationMessage, MessageRole, ParsedExport } from "./conversation.js";
import { toIsoTimestamp } from "./timestamps.js";

/**
 * Plain-text transcripts, in the three shapes people paste:
 * - speaker-labelled: `Maya: text` starts a message (optionally after a `[2024-05-01 10:02]`
 *   time), lines without a label continue it, blank lines included;
 * - quoted: runs of `> ` lines are the user, the text until the next quote is the reply;
 * - otherwise blank-line separated paragraphs, one message each (speaker unknown).
 * Turn ids are `<conversation id>#L<line>` of the line a message starts on.
 */

const LABEL = /^\s*(?:\[([^\]\n]{1,40})\]\s*)?([\p{L}][\p{L}\p{N} ._'-]{0,39}?)\s*:[ \t]+(\S.*)$/u;
const QUOTE = /^\s*>\s?(.*)$/;
/** More distinct repeated labels than this is a document with "Key: value" lines, not a transcript. */
const MAX_SPEAKERS = 12;

/** Names that mean "the person asking" and "the machine answering" in labelled transcripts. */
const USER_NAMES = new Set(["user", "human", "me", "you", "q", "question", "customer"]);
const ASSISTANT_NAMES = new Set([
  "assistant",
  "ai",
  "bot",
  "a",
  "answer",
  "claude",
  "chatgpt",
  "gpt",
  "codex",
  "gemini",
  "model",
  "agent",
]);

/** Which shape a text has; undefined when it looks like no transcript at all. */
export function plainTextShape(text: string): "labelled" | "quoted" | undefined {
  const lines = text.split("\n");
  if (speakerLabels(lines).size > 0) return "labelled";
  const quoted = lines.filter((line) => QUOTE.test(line)).length;
  const unquotedText = lines.some((line) => line.trim() !== "" && !QUOTE.test(line));
  return quoted >= 1 && unquotedText ? "quoted" : undefined;
}

export function parsePlainTranscript(text: string, conversationId: string): ParsedExport {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const shape = plainTextShape(lines.join("\n"));
  const messages =
    shape === "labelled"
      ? labelledMessages(lines, speakerLabels(lines), conversationId)
      : shape === "quoted"
        ? quotedMessages(lines, conversationId)
        : paragraphMessages(lines, conversationId);
  if (messages.length === 0)
    throw new ExportParseError("line 1", "no message in the transcript (the file is empty)");
  return { conversations: [{ id: conversationId, messages }], problems: [] };
}

/**
 * The labels that name speakers: used on at least two lines, or a role name ("User", "Assistant")
 * used once; with no repeated label, any label when there are two to four distinct ones (a short
 * exchange). Prose with an occasional "Note: ..." has none of these.
 */
function speakerLabels(lines: string[]): Set<string> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const match = LABEL.exec(line);
    if (match) counts.set(match[2]!, (counts.get(match[2]!) ?? 0) + 1);
  }
  const isRoleName = (name: string) =>
    USER_NAMES.has(name.toLowerCase()) || ASSISTANT_NAMES.has(name.toLowerCase());
  const repeated = [...counts].filter(([, count]) => count >= 2).map(([name]) => name);
  if (repeated.length > 0 && repeated.length <= MAX_SPEAKERS) {
    return new Set([...repeated, ...[...counts.keys()].filter(isRoleName)]);
  }
  if (repeated.length === 0 && counts.size >= 2 && counts.size <= 4) return new Set(counts.keys());
  return new Set();
}

function roleOf(speaker: string, firstSpeaker: string | undefined): MessageRole {
  const name = speaker.toLowerCase();
  if (USER_NAMES.has(name)) return "user";
  if (ASSISTANT_NAMES.has(name)) return "assistant";
  return speaker === firstSpeaker ? "user" : "other";
}

function labelledMessages(lines: string[], speakers: Set<string>, id: string): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  const bodies: string[][] = [];
  let firstSpeaker: string | undefined;
  lines.forEach((line, index) => {
    const match = LABEL.exec(line);
    if (match && speakers.has(match[2]!)) {
      const speaker = match[2]!;
      firstSpeaker ??= speaker;
      const timestamp = match[1] === undefined ? undefined : toIsoTimestamp(match[1]);
      messages.push({
        turnId: `${id}#L${index + 1}`,
        speaker,
        role: "other",
        text: "",
        ...(timestamp ? { timestamp } : {}),
      });
      bodies.push([match[3]!]);
    } else bodies[bodies.length - 1]?.push(line);
  });
  const hasUser = [...speakers].some((name) => USER_NAMES.has(name.toLowerCase()));
  messages.forEach((message, index) => {
    message.text = bodies[index]!.join("\n").trim();
    message.role = roleOf(message.speaker, hasUser ? undefined : firstSpeaker);
  });
  return messages.filter((message) => message.text !== "");
}

function quotedMessages(lines: string[], id: string): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  let current: { quoted: boolean; start: number; lines: string[] } | undefined;
  const flush = () => {
    const text = current?.lines.join("\n").trim();
    if (current && text) {
      const role = current.quoted ? "user" : "assistant";
      messages.push({ turnId: `${id}#L${current.start + 1}`, speaker: role, role, text });
    }
    current = undefined;
  };
  lines.forEach((line, index) => {
    const quote = QUOTE.exec(line);
    if (line.trim() === "") {
      current?.lines.push("");
      return;
    }
    const quoted = quote !== null;
    if (current === undefined || current.quoted !== quoted) {
      flush();
      current = { quoted, start: index, lines: [] };
    }
    current.lines.push(quoted ? quote[1]! : line);
  });
  flush();
  return messages;
}

function paragraphMessages(lines: string[], id: string): ConversationMessage[] {
  const messages: ConversationMessage[] = [];
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return;
    const text = lines.slice(start, end).join("\n").trim();
    if (text) messages.push({ turnId: `${id}#L${start + 1}`, speaker: "unknown", role: "other", text });
    start = -1;
  };
  lines.forEach((line, index) => {
    if (line.trim() === "") flush(index);
    else if (start < 0) start = index;
  });
  flush(lines.length);
  return messages;
}
