import type { CodeLanguage } from "@atrium/spec";
import { ConfigError } from "@atrium/spec";
import type { CodeDialect } from "../dialects/code-dialect.js";
import { dialectFor } from "../dialects/dialect-for.js";

/** Custom delimiters around the model's code, e.g. `{ open: "<code>", close: "</code>" }`. */
export interface CodeBlockTags {
  open: string;
  close: string;
}

/**
 * How the model marks its code: `"markdown"` (a fenced block labelled with the language, the
 * default: models write these most reliably), `"xml"` (`<code>...</code>`), or custom tags.
 */
export type CodeBlockStyle = "markdown" | "xml" | CodeBlockTags;

export interface CodeBlockFormat {
  /** The opening tag as the prompt shows it. */
  readonly open: string;
  readonly close: string;
  /** Matches any accepted opening tag (and the line break after it). */
  readonly openPattern: RegExp;
  /** Sent to the model so it stops after the block instead of inventing an observation. */
  readonly stopSequences: string[];
}

export interface ExtractedCode {
  code: string;
  /** The model's text with a missing closing tag added, as it is kept in memory. */
  modelOutput: string;
  /** True when the last block had no closing tag (cut by a stop sequence or forgotten). */
  closedByUs: boolean;
}

// "Observation:" on its own line is what a model writes when it starts imagining the result.
const OBSERVATION_STOP = "\nObservation:";

/**
 * The code-block format for a style, in a language (or its dialect): markdown fences carry the
 * dialect's labels; tags are the same in every language.
 */
export function codeBlockFormat(
  style: CodeBlockStyle,
  language: CodeLanguage | CodeDialect,
): CodeBlockFormat {
  if (style === "markdown") {
    const labels = (typeof language === "string" ? dialectFor(language) : language).fence;
    return {
      open: "```" + labels.shown,
      close: "```",
      openPattern: new RegExp("```(?:" + labels.accepted.join("|") + ")[ \\t]*\\r?\\n", "g"),
      // The opening fence is "```js\n", so "\n```\n" only ever matches a closing fence.
      stopSequences: ["\n```\n", OBSERVATION_STOP],
    };
  }
  const tags = style === "xml" ? { open: "<code>", close: "</code>" } : style;
  if (typeof tags?.open !== "string" || typeof tags.close !== "string" || !tags.open || !tags.close) {
    throw new ConfigError(
      'codeBlockTags must be "markdown", "xml" or { open: string, close: string } with non-empty tags',
    );
  }
  return {
    open: tags.open,
    close: tags.close,
    openPattern: new RegExp(escapeRegExp(tags.open) + "[ \\t]*\\r?\\n?", "g"),
    stopSequences: tags.open.includes(tags.close) ? [OBSERVATION_STOP] : [tags.close, OBSERVATION_STOP],
  };
}

/**
 * Pulls the code out of a model reply: every block in order, joined. A last block without its
 * closing tag is taken to the end of the text (stop sequences cut the tag off, and models
 * sometimes forget it) and the tag is added back to the kept reply.
 */
export function extractCode(text: string, format: CodeBlockFormat): ExtractedCode | undefined {
  const blocks: string[] = [];
  const pattern = new RegExp(format.openPattern.source, "g");
  let position = 0;
  let closedByUs = false;
  for (;;) {
    pattern.lastIndex = position;
    const opening = pattern.exec(text);
    if (!opening) break;
    const start = opening.index + opening[0].length;
    const end = text.indexOf(format.close, start);
    if (end === -1) {
      blocks.push(text.slice(start));
      closedByUs = true;
      break;
    }
    blocks.push(text.slice(start, end));
    position = end + format.close.length;
  }
  const code = blocks
    .map((block) => block.replace(/\s+$/, ""))
    .filter((block) => block.trim() !== "")
    .join("\n\n");
  if (code === "") return undefined;
  const modelOutput = closedByUs ? `${text.replace(/\s+$/, "")}\n${format.close}` : text;
  return { code, modelOutput, closedByUs };
}

/** What the model reads after a reply without code: the format, with an empty block to copy. */
export function noCodeBlockMessage(format: CodeBlockFormat, dialect: CodeDialect): string {
  return `your reply had no code block. Reply with "Thought:" and one code block, like this:\nThought: I will ...\n${format.open}\n${dialect.lineComment} your code here\n${format.close}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
