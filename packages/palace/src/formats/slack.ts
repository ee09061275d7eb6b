import { ExportParseError } from "../errors.js";
import type { ConversationMessage, ParsedExport, ParseProblem } from "./conversation.js";
import { isRecord, type JsonRecord, jsonPath, jsonType, stringField } from "./json-shape.js";
import { toIsoTimestamp } from "./timestamps.js";

/**
 * Slack's workspace export: a folder with `users.json` and `channels.json` (plus `groups.json`,
 * `dms.json`, `mpims.json` for private conversations) and one folder per channel holding a
 * `YYYY-MM-DD.json` array of messages per day. Each day file is one conversation (so re-mining
 * a newer export only touches the days that changed). Join/leave/topic notices are left out;
 * user mentions are written with the person's name.
 */

/** Files at the top of an export that describe it rather than hold messages. */
export const SLACK_METADATA_FILES = new Set([
  "users.json",
  "channels.json",
  "groups.json",
  "dms.json",
  "mpims.json",
  "integration_logs.json",
  "canvases.json",
  "org_users.json",
]);

/** A Slack export's people: user id → the name shown in Slack. */
export type SlackUsers = ReadonlyMap<string, string>;

/** The names in a parsed `users.json` (display name, else real name, else handle). */
export function slackUsers(value: unknown): SlackUsers {
  const users = new Map<string, string>();
  if (!Array.isArray(value)) return users;
  for (const user of value) {
    if (!isRecord(user)) continue;
    const id = stringField(user, "id");
    if (id === undefined) continue;
    const profile = isRecord(user.profile) ? user.profile : {};
    const name =
      stringField(profile, "display_name") ||
      stringField(profile, "real_name") ||
      stringField(user, "real_name") ||
      stringField(user, "name");
    if (name) users.set(id, name);
  }
  return users;
}

/** Subtypes that are notices about the channel, not something someone said. */
const NOTICE_SUBTYPES = new Set([
  "channel_join",
  "channel_leave",
  "channel_topic",
  "channel_purpose",
  "channel_name",
  "channel_archive",
  "channel_unarchive",
  "group_join",
  "group_leave",
  "group_topic",
  "group_purpose",
  "group_name",
  "pinned_item",
  "unpinned_item",
  "bot_add",
  "bot_remove",
  "tombstone",
]);

/**
 * One day file of a channel. `conversationId` is its path inside the export without `.json`
 * ("general/2024-03-05"), `channel` the channel's name (for the title).
 */
export function parseSlackDay(
  value: unknown,
  context: { conversationId: string; channel: string; users: SlackUsers },
): ParsedExport {
  if (!Array.isArray(value)) {
    throw new ExportParseError(
      "$",
      `expected a Slack day file (an array of messages), got ${jsonType(value)}`,
    );
  }
  const messages: ConversationMessage[] = [];
  const problems: ParseProblem[] = [];
  value.forEach((raw, index) => {
    if (!isRecord(raw) || typeof raw.ts !== "string") {
      problems.push({ position: jsonPath("$", index), message: 'not a Slack message (no "ts"); skipped' });
      return;
    }
    if (raw.type !== undefined && raw.type !== "message") return;
    const subtype = stringField(raw, "subtype");
    if (subtype !== undefined && NOTICE_SUBTYPES.has(subtype)) return;
    const text = resolveMarkup(stringField(raw, "text") ?? "", context.users).trim();
    if (text === "") return;
    const isBot = subtype === "bot_message" || typeof raw.bot_id === "string";
    const timestamp = toIsoTimestamp(raw.ts);
    messages.push({
      turnId: raw.ts,
      speaker: speakerName(raw, context.users),
      role: isBot ? "other" : "user",
      text,
      ...(timestamp ? { timestamp } : {}),
    });
  });
  return {
    conversations: [{ id: context.conversationId, title: `#${context.channel}`, messages }],
    problems,
  };
}

function speakerName(message: JsonRecord, users: SlackUsers): string {
  const user = stringField(message, "user");
  const known = user === undefined ? undefined : users.get(user);
  if (known) return known;
  const profile = isRecord(message.user_profile) ? message.user_profile : {};
  return (
    stringField(profile, "display_name") ||
    stringField(profile, "real_name") ||
    stringField(message, "username") ||
    user ||
    "unknown"
  );
}

/**
 * Slack's markup made readable: `<@U123>` → `@Name`, `<#C1|general>` → `#general`,
 * `<https://x|label>` → `label (https://x)`, `<https://x>` → the URL, and the three escaped
 * characters Slack encodes (`&amp;` `&lt;` `&gt;`).
 */
export function resolveMarkup(text: string, users: SlackUsers): string {
  return text
    .replace(/<([^<>]+)>/g, (whole, inner: string) => {
      const [target = "", label] = inner.split("|", 2);
      if (target.startsWith("@")) return `@${label ?? users.get(target.slice(1)) ?? target.slice(1)}`;
      if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
      if (target.startsWith("!")) return `@${label ?? target.slice(1)}`;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target))
        return label && label !== target ? `${label} (${target})` : target;
      return whole;
    })
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}
