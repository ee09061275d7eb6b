import { ExportParseError } from "../errors.js";
import type { Conversation, ConversationMessage, ParsedExport, ParseProblem } from "./conversation.js";
import { isRecord, type JsonRecord, jsonPath, jsonType, stringField } from "./json-shape.js";
import { toIsoTimestamp } from "./timestamps.js";

/**
 * ChatGPT's data export (`conversations.json`): an array of conversations whose messages form a
 * tree (`mapping`: node id → {message, parent, children}); edits and regenerations are branches.
 * The conversation the user last saw is the path from the root to `current_node`, so that is the
 * one mined. System prompts, tool traffic, hidden context and non-text parts are left out.
 */
export function parseChatGptExport(value: unknown): ParsedExport {
  const items = Array.isArray(value) ? value : isRecord(value) && "mapping" in value ? [value] : undefined;
  if (items === undefined) {
    throw new ExportParseError(
      "$",
      `expected an array of conversations with "mapping", got ${jsonType(value)}`,
    );
  }
  const conversations: Conversation[] = [];
  const problems: ParseProblem[] = [];
  items.forEach((item, index) => {
    const path = Array.isArray(value) ? jsonPath("$", index) : "$";
    if (!isRecord(item) || !isRecord(item.mapping)) {
      problems.push({ position: path, message: 'not a conversation (no "mapping" object); skipped' });
      return;
    }
    const id = stringField(item, "conversation_id") ?? stringField(item, "id") ?? `chatgpt-${index}`;
    const branch = currentBranch(item.mapping, stringField(item, "current_node"));
    if (typeof branch === "string") {
      problems.push({ position: jsonPath(path, "mapping"), message: `${branch}; skipped` });
      return;
    }
    const messages: ConversationMessage[] = [];
    for (const nodeId of branch) {
      const node = item.mapping[nodeId];
      const message = isRecord(node) ? node.message : undefined;
      if (message === undefined || message === null) continue;
      const read = readMessage(message, nodeId);
      if (typeof read === "string") {
        problems.push({
          position: jsonPath(jsonPath(jsonPath(path, "mapping"), nodeId), "message"),
          message: read,
        });
      } else if (read !== undefined) messages.push(read);
    }
    const title = stringField(item, "title")?.trim();
    conversations.push({ id, ...(title ? { title } : {}), messages });
  });
  return { conversations, problems };
}

/**
 * Node ids from the root to `currentNode`; without a usable `current_node`, the newest branch
 * (the last child at every fork). A string describes a tree that cannot be walked.
 */
function currentBranch(mapping: JsonRecord, currentNode: string | undefined): string[] | string {
  const parentOf = (id: string): string | undefined => {
    const node = mapping[id];
    return isRecord(node) ? stringField(node, "parent") : undefined;
  };
  if (currentNode !== undefined && currentNode in mapping) {
    const path: string[] = [];
    const seen = new Set<string>();
    for (let id: string | undefined = currentNode; id !== undefined && id in mapping; id = parentOf(id)) {
      if (seen.has(id)) return `the message tree has a cycle at node ${JSON.stringify(id)}`;
      seen.add(id);
      path.push(id);
    }
    return path.reverse();
  }
  const root = Object.keys(mapping).find((id) => {
    const parent = parentOf(id);
    return parent === undefined || !(parent in mapping);
  });
  if (root === undefined) return "the message tree has no root node";
  const path: string[] = [];
  const seen = new Set<string>();
  for (let id: string | undefined = root; id !== undefined && !seen.has(id); ) {
    seen.add(id);
    path.push(id);
    const node: unknown = mapping[id];
    const children: unknown[] = isRecord(node) && Array.isArray(node.children) ? node.children : [];
    const last: unknown = children[children.length - 1];
    id = typeof last === "string" && last in mapping ? last : undefined;
  }
  return path;
}

function readMessage(raw: unknown, nodeId: string): ConversationMessage | string | undefined {
  if (!isRecord(raw)) return `expected a message object, got ${jsonType(raw)}; skipped`;
  const author = isRecord(raw.author) ? stringField(raw.author, "role") : undefined;
  if (author === undefined) return 'the message has no "author.role"; skipped';
  if (author !== "user" && author !== "assistant") return undefined;
  const metadata = isRecord(raw.metadata) ? raw.metadata : {};
  if (metadata.is_visually_hidden_from_conversation === true) return undefined;
  const recipient = stringField(raw, "recipient");
  if (author === "assistant" && recipient !== undefined && recipient !== "all") return undefined;
  const text = contentText(raw.content);
  if (text === "") return undefined;
  const timestamp = toIsoTimestamp(raw.create_time);
  return {
    turnId: stringField(raw, "id") ?? nodeId,
    speaker: author,
    role: author,
    text,
    ...(timestamp ? { timestamp } : {}),
  };
}

function contentText(content: unknown): string {
  if (!isRecord(content)) return "";
  const type = stringField(content, "content_type");
  if (type !== "text" && type !== "multimodal_text") return "";
  if (!Array.isArray(content.parts)) return "";
  return content.parts
    .filter((part): part is string => typeof part === "string")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .join("\n\n");
}
