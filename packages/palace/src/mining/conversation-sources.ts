import { stat } from "node:fs/promises";
import { basename, dirname, extname, join, resolve } from "node:path";
import { errorMessage, rethrowIfFatal } from "@atrium/spec";
import type { DrawerDraft, DrawerMetadata } from "../drawers/drawer.js";
import { ExportParseError } from "../errors.js";
import { parseChatGptExport } from "../formats/chatgpt.js";
import { type ConversationChunking, chunkConversation } from "../formats/chunk-conversation.js";
import { parseClaudeAiExport } from "../formats/claude-ai.js";
import { parseClaudeCodeTranscript } from "../formats/claude-code.js";
import { parseCodexRollout } from "../formats/codex.js";
import type { Conversation, ConversationFormat, ParsedExport } from "../formats/conversation.js";
import { detectJsonFormat, detectJsonLinesFormat, isJsonLines } from "../formats/detect-format.js";
import { parseJsonText } from "../formats/json-syntax.js";
import { parsePlainTranscript, plainTextShape } from "../formats/plain-text.js";
import { parseSlackDay, SLACK_METADATA_FILES, type SlackUsers, slackUsers } from "../formats/slack.js";
import type { MineLimits } from "../limits.js";
import { throwIfAborted } from "./abort.js";
import { looksBinary, type ProjectFile, walkProject } from "./project-walker.js";
import { readRegularFile } from "./read-regular-file.js";
import type { RoomClassifier } from "./rooms.js";
import { type SourceItem, type SourceJob, sourceHash, sourceKey } from "./source-job.js";
import { tooManyFiles } from "./too-many-files.js";

/**
 * Conversation exports as sources, one per conversation (a Claude.ai export holds hundreds; a
 * Claude Code transcript, a Slack day or a text file holds one). Keyed by the conversation's own
 * id, so a newer export of the same account only re-files the conversations that changed.
 */

export interface ConversationSourceContext {
  wing: string;
  chunking: ConversationChunking;
  format?: ConversationFormat;
  classifier: RoomClassifier;
  limits: MineLimits;
  signal?: AbortSignal;
}

export async function* conversationSources(
  path: string,
  context: ConversationSourceContext,
): AsyncGenerator<SourceItem> {
  const info = await stat(path);
  const root = info.isDirectory() ? path : dirname(path);
  const files: ProjectFile[] = [];
  if (info.isDirectory()) {
    for await (const entry of walkProject(root, {
      maxFileBytes: context.limits.maxExportFileBytes,
      signal: context.signal,
    })) {
      if (entry.type === "excluded") yield { type: "excluded", file: entry.path, reason: entry.reason };
      else {
        files.push(entry.file);
        if (files.length > context.limits.maxFiles) throw tooManyFiles(path, context.limits.maxFiles);
      }
    }
  } else if (info.size > context.limits.maxExportFileBytes) {
    yield { type: "excluded", file: basename(path), reason: "too-large" };
  } else {
    files.push({ path: basename(path), absolutePath: path, size: info.size, mtimeMs: info.mtimeMs });
  }
  yield { type: "files", files: files.length };
  const slackUserCache = new Map<string, Promise<SlackUsers>>();
  for (const file of files) {
    throwIfAborted(context.signal);
    yield* fileSources(file, context, (directory) => {
      let users = slackUserCache.get(directory);
      if (users === undefined) {
        users = readRegularFile(join(directory, "users.json"), context.limits.maxExportFileBytes)
          .then((read) => {
            if (!("bytes" in read)) throw new Error("users.json is too large");
            return slackUsers(JSON.parse(read.bytes.toString("utf8")));
          })
          .catch(() => new Map<string, string>());
        slackUserCache.set(directory, users);
      }
      return users;
    });
    yield { type: "file-done", file: file.path };
  }
}

async function* fileSources(
  file: ProjectFile,
  context: ConversationSourceContext,
  usersIn: (exportRoot: string) => Promise<SlackUsers>,
): AsyncGenerator<SourceItem> {
  let parsed: ParsedExport | undefined;
  let format: ConversationFormat | undefined;
  try {
    const read = await readRegularFile(file.absolutePath, context.limits.maxExportFileBytes);
    if (!("bytes" in read)) {
      yield { type: "excluded", file: file.path, reason: "too-large" };
      return;
    }
    const { bytes } = read;
    if (looksBinary(bytes)) {
      yield { type: "excluded", file: file.path, reason: "binary" };
      return;
    }
    const text = new TextDecoder().decode(bytes);
    ({ parsed, format } = await parseFile(file, text, context.format, usersIn));
  } catch (error) {
    rethrowIfFatal(error);
    const failure =
      error instanceof ExportParseError
        ? { file: file.path, ...(error.position ? { position: error.position } : {}), message: error.detail }
        : { file: file.path, message: errorMessage(error) };
    yield { type: "error", error: failure };
    return;
  }
  if (parsed === undefined || format === undefined) {
    yield { type: "excluded", file: file.path, reason: "not-an-export" };
    return;
  }
  for (const problem of parsed.problems) {
    yield { type: "error", error: { file: file.path, position: problem.position, message: problem.message } };
  }
  const origin = `convos:${resolve(file.absolutePath)}`;
  const keys = new Set<string>();
  for (const conversation of parsed.conversations) {
    if (conversation.messages.length === 0) continue;
    const job = conversationJob(conversation, file.path, format, origin, context);
    keys.add(job.key);
    yield { type: "job", job };
  }
  // Read whole: a conversation this file held before and no longer does was deleted from it. With
  // problems, a missing conversation may only be unreadable, so nothing is removed.
  if (parsed.problems.length === 0) yield { type: "sweep", sweep: { origin, keys, file: file.path } };
}

/** The format (given or detected) and the parse; undefined when the file is no conversation export. */
async function parseFile(
  file: ProjectFile,
  text: string,
  forced: ConversationFormat | undefined,
  usersIn: (exportRoot: string) => Promise<SlackUsers>,
): Promise<{ parsed?: ParsedExport; format?: ConversationFormat }> {
  const name = basename(file.path);
  const stem = file.path.slice(0, file.path.length - extname(file.path).length);
  const jsonLines =
    forced === "claude-code" || forced === "codex" || (forced === undefined && isJsonLines(file.path, text));
  if (jsonLines) {
    const format = forced ?? detectJsonLinesFormat(text);
    if (format === "claude-code") return { format, parsed: parseClaudeCodeTranscript(text, stem) };
    if (format === "codex") return { format, parsed: parseCodexRollout(text, stem) };
    return {};
  }
  const trimmed = text.trimStart();
  const json =
    forced === "plain-text"
      ? false
      : forced !== undefined ||
        extname(name).toLowerCase() === ".json" ||
        trimmed.startsWith("[") ||
        trimmed.startsWith("{");
  if (json) {
    if (SLACK_METADATA_FILES.has(name) && forced === undefined) return {};
    let value: unknown;
    try {
      value = parseJsonText(text);
    } catch (error) {
      // Text that merely starts with a bracket is read as text; a .json file has to be JSON.
      if (extname(name).toLowerCase() === ".json" || forced !== undefined) throw error;
      return plainText(text, file.path);
    }
    const format = forced ?? detectJsonFormat(value);
    if (format === "claude-ai") return { format, parsed: parseClaudeAiExport(value) };
    if (format === "chatgpt") return { format, parsed: parseChatGptExport(value) };
    if (format === "slack") {
      const channelDirectory = dirname(file.absolutePath);
      const users = await usersIn(dirname(channelDirectory));
      const channel = basename(channelDirectory);
      return { format, parsed: parseSlackDay(value, { conversationId: stem, channel, users }) };
    }
    return {};
  }
  return forced === "plain-text"
    ? { format: "plain-text", parsed: parsePlainTranscript(text, file.path) }
    : plainText(text, file.path);
}

function plainText(text: string, path: string): { parsed?: ParsedExport; format?: ConversationFormat } {
  if (plainTextShape(text) === undefined) return {};
  return { format: "plain-text", parsed: parsePlainTranscript(text, path) };
}

/** Characters of a conversation title kept in drawer metadata. */
const TITLE_MAX_CHARS = 200;

function conversationJob(
  conversation: Conversation,
  file: string,
  format: ConversationFormat,
  origin: string,
  context: ConversationSourceContext,
): SourceJob {
  const { wing, chunking, limits } = context;
  const room = context.classifier.conversationRoom(conversation, file);
  const key = sourceKey("convo", wing, conversation.id);
  const hall = "conversations";
  const recipe = { mode: "convos", wing, room, hall, format, chunking, maxChunkChars: limits.maxChunkChars };
  return {
    key,
    file,
    origin,
    hash: sourceHash(recipe, JSON.stringify(conversation)),
    drafts: () =>
      chunkConversation(conversation, chunking, limits.maxChunkChars).map((chunk): DrawerDraft => {
        const metadata: DrawerMetadata = { format, file, conversation: conversation.id };
        if (conversation.title) metadata.title = conversation.title.slice(0, TITLE_MAX_CHARS);
        if (chunk.turnIds.length > 1) metadata.turnIds = chunk.turnIds.join(",");
        if (chunk.part !== undefined) {
          metadata.part = chunk.part;
          metadata.parts = chunk.parts!;
        }
        return {
          content: chunk.content,
          wing,
          room,
          hall,
          source: key,
          position: chunk.position,
          ...(chunk.speaker ? { speaker: chunk.speaker } : {}),
          turnId: chunk.turnId,
          sessionId: conversation.id,
          ...(chunk.timestamp ? { timestamp: chunk.timestamp } : {}),
          metadata,
        };
      }),
  };
}
