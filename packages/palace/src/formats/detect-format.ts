import { extname } from "node:path";
import type { ConversationFormat } from "./conversation.js";
import { isRecord, type JsonRecord } from "./json-shape.js";
import { plainTextShape } from "./plain-text.js";

/**
 * Which export a file is, judged by its content (the extension only decides between JSON, JSON
 * Lines and text). Undefined for anything that is no conversation export: a `package.json`, a
 * Slack `users.json`, prose without speakers, broken JSON.
 */
export function detectFormat(path: string, text: string): ConversationFormat | undefined {
  if (isJsonLines(path, text)) return detectJsonLinesFormat(text);
  const trimmed = text.trimStart();
  const isJsonFile = extname(path).toLowerCase() === ".json";
  if (isJsonFile || trimmed.startsWith("[") || trimmed.startsWith("{")) {
    try {
      return detectJsonFormat(JSON.parse(text));
    } catch {
      // A .json file must be JSON; text that merely starts with a bracket ("[10:02] Ana: hi") is read as text.
      if (isJsonFile) return undefined;
    }
  }
  return plainTextShape(text) === undefined ? undefined : "plain-text";
}

/** The format of an already parsed JSON file. */
export function detectJsonFormat(value: unknown): ConversationFormat | undefined {
  const sample = Array.isArray(value) ? value.find(isRecord) : isRecord(value) ? value : undefined;
  if (sample === undefined) return undefined;
  if (Array.isArray(sample.chat_messages)) return "claude-ai";
  if (isRecord(sample.mapping)) return "chatgpt";
  if (
    Array.isArray(value) &&
    typeof sample.ts === "string" &&
    (sample.type === "message" || "text" in sample)
  ) {
    return "slack";
  }
  return undefined;
}

/** Lines the detector reads before deciding (transcripts say what they are early). */
const JSON_LINES_SAMPLE = 50;

/** A `.jsonl` / `.ndjson` file, or text whose first line is a whole JSON object with more lines after it. */
export function isJsonLines(path: string, text: string): boolean {
  const extension = extname(path).toLowerCase();
  if (extension === ".jsonl" || extension === ".ndjson") return true;
  const trimmed = text.trimStart();
  if (!trimmed.startsWith("{")) return false;
  const newline = trimmed.indexOf("\n");
  if (newline === -1) return false;
  const firstLine = trimmed.slice(0, newline).trim();
  if (!firstLine.endsWith("}") || trimmed.slice(newline).trim() === "") return false;
  try {
    JSON.parse(firstLine);
    return true;
  } catch {
    return false;
  }
}

/** Claude Code or Codex, judged by the entry types of the first lines. */
export function detectJsonLinesFormat(text: string): ConversationFormat | undefined {
  const entries: JsonRecord[] = [];
  for (const line of text.split("\n", JSON_LINES_SAMPLE * 2)) {
    if (entries.length >= JSON_LINES_SAMPLE) break;
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value)) entries.push(value);
    } catch {
      // A broken line is reported by the parser with its position; detection reads the others.
    }
  }
  const codexTypes = new Set(["session_meta", "response_item", "event_msg", "turn_context"]);
  if (entries.some((entry) => typeof entry.type === "string" && codexTypes.has(entry.type))) return "codex";
  const claudeCode = entries.some(
    (entry) =>
      (entry.type === "user" || entry.type === "assistant") &&
      ("sessionId" in entry || isRecord(entry.message)),
  );
  if (claudeCode || entries.some((entry) => entry.type === "summary" && "leafUuid" in entry))
    return "claude-code";
  const first = entries[0];
  const legacyCodex =
    first !== undefined &&
    first.type === undefined &&
    typeof first.id === "string" &&
    "instructions" in first &&
    entries.some((entry) => entry.type === "message" && typeof entry.role === "string");
  return legacyCodex ? "codex" : undefined;
}
