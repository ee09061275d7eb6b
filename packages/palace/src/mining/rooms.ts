import { ValidationError, type ValidationIssue } from "@atrium/spec";
import ignore, { type Ignore } from "ignore";
import type { Conversation } from "../formats/conversation.js";
import { keywordVote, type WeightedText } from "./keyword-vote.js";
import { CONVERSATION_TOPICS, PROJECT_TOPICS, type TopicRoom } from "./topic-vocabulary.js";

/**
 * Which room a drawer is filed in. A `rooms` config (the user's own topics) is asked first: a
 * rule whose `paths` match the file wins outright, else its keywords vote. Without a config, or
 * when no rule gets enough votes: a project file goes to its folder room (see `folder-rooms.ts`),
 * else to the topic its name, headings and text vote for; a conversation goes to the topic its
 * title and messages vote for. "general" is what is left when nothing speaks for a topic.
 */

export interface RoomRule {
  name: string;
  /** Words (or phrases) whose occurrences vote for this room. */
  keywords: string[];
  /** gitignore-style patterns of source paths (relative to the mined root) that go here outright. */
  paths: string[];
}

export const FALLBACK_ROOM = "general";

/** Weights of where a word occurs: a title or heading says more about the topic than a passing mention. */
const TITLE_WEIGHT = 3;
const HEADING_WEIGHT = 2;

/** A `rooms` config as given (JSON, options): checked, every problem named at once. */
export function parseRoomRules(value: unknown): RoomRule[] {
  const issues: ValidationIssue[] = [];
  if (!Array.isArray(value)) {
    throw new ValidationError("rooms config", [
      {
        path: [],
        message:
          'expected an array of { name, keywords?, paths? } (e.g. [{"name": "billing", "keywords": ["invoice"]}])',
      },
    ]);
  }
  const rules: RoomRule[] = [];
  const names = new Set<string>();
  value.forEach((entry, index) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      issues.push({ path: [index], message: "expected an object with a name" });
      return;
    }
    const { name, keywords = [], paths = [] } = entry as Record<string, unknown>;
    if (typeof name !== "string" || name.trim() === "") {
      issues.push({ path: [index, "name"], message: "expected a non-empty string" });
      return;
    }
    if (names.has(name.trim()))
      issues.push({ path: [index, "name"], message: `room "${name}" is listed twice` });
    names.add(name.trim());
    const keywordList = stringList(keywords, [index, "keywords"], issues);
    const pathList = stringList(paths, [index, "paths"], issues);
    if (keywordList.length === 0 && pathList.length === 0) {
      issues.push({ path: [index], message: `room "${name}" needs keywords or paths to be chosen` });
    }
    rules.push({ name: name.trim(), keywords: keywordList, paths: pathList });
  });
  if (issues.length > 0) throw new ValidationError("rooms config", issues);
  return rules;
}

function stringList(value: unknown, path: (string | number)[], issues: ValidationIssue[]): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item.trim() === "")) {
    issues.push({ path, message: "expected an array of non-empty strings" });
    return [];
  }
  return value.map((item: string) => item.trim());
}

/** What the classifier knows about one project file. */
export interface ProjectFileFacts {
  /** Relative to the mined root. */
  path: string;
  /** From the folder plan; undefined when the file sits in no meaningful folder. */
  folderRoom: string | undefined;
  headings: readonly string[];
  content: string;
}

export class RoomClassifier {
  readonly #rules: readonly RoomRule[];
  readonly #pathMatchers: readonly { name: string; matcher: Ignore }[];

  constructor(rules: readonly RoomRule[] = []) {
    this.#rules = rules;
    this.#pathMatchers = rules
      .filter((rule) => rule.paths.length > 0)
      .map((rule) => ({ name: rule.name, matcher: ignore().add(rule.paths) }));
  }

  projectRoom(file: ProjectFileFacts): string {
    const texts: WeightedText[] = [
      { text: file.path.replace(/[/._-]+/g, " "), weight: TITLE_WEIGHT },
      ...file.headings.map((text) => ({ text, weight: HEADING_WEIGHT })),
      { text: file.content, weight: 1 },
    ];
    return (
      this.#configuredRoom(file.path, texts) ??
      file.folderRoom ??
      keywordVote(texts, PROJECT_TOPICS) ??
      keywordVote(texts, CONVERSATION_TOPICS) ??
      FALLBACK_ROOM
    );
  }

  /** `sourcePath` is the export file's path relative to the mined root (for `paths` rules). */
  conversationRoom(conversation: Conversation, sourcePath: string): string {
    const texts: WeightedText[] = [
      ...(conversation.title ? [{ text: conversation.title, weight: TITLE_WEIGHT }] : []),
      ...conversation.messages.map((message) => ({ text: message.text, weight: 1 })),
    ];
    return (
      this.#configuredRoom(sourcePath, texts) ?? keywordVote(texts, CONVERSATION_TOPICS) ?? FALLBACK_ROOM
    );
  }

  #configuredRoom(path: string, texts: readonly WeightedText[]): string | undefined {
    if (this.#rules.length === 0) return undefined;
    const byPath = this.#pathMatchers.find(({ matcher }) => path !== "" && matcher.ignores(path));
    if (byPath) return byPath.name;
    const topics: TopicRoom[] = this.#rules.map((rule) => ({ name: rule.name, keywords: rule.keywords }));
    return keywordVote(texts, topics);
  }
}
