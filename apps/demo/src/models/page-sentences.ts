/** A page as a reader takes it in: its title, its summary line, and its prose as sentences. */
export interface PageReading {
  title?: string;
  description?: string;
  sentences: string[];
}

/**
 * Reads Markdown/MDX the way a person skims it: front matter gives the title and description,
 * code blocks, tables, imports and bare component tags are skipped, links and emphasis become
 * their text, and paragraphs and list items are split into sentences.
 */
export function readPage(text: string): PageReading {
  const reading: PageReading = { sentences: [] };
  let body = text;
  const front = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  if (front) {
    body = text.slice(front[0].length);
    for (const line of front[1]!.split(/\r?\n/)) {
      const field = /^(title|description):\s*(.+)$/.exec(line);
      if (field) reading[field[1] as "title" | "description"] = unquote(field[2]!.trim());
    }
  }
  let inFence = false;
  // A sentence ending in ":" right before a code block introduces it ("run:"): a reader takes
  // the block's first line with it, if it is short (a command, a setting).
  let introducesCode = false;
  let codeTaken = false;
  let paragraph: string[] = [];
  const flush = () => {
    const prose = plainText(paragraph.join(" "));
    paragraph = [];
    for (const sentence of prose.split(/(?<=[.!?])\s+(?=[A-Z0-9`"(])/)) {
      const trimmed = sentence.trim();
      if (/[\p{L}]{2}/u.test(trimmed) && trimmed.length >= 20) reading.sentences.push(trimmed);
    }
  };
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) {
      if (!inFence) {
        flush();
        introducesCode = reading.sentences.at(-1)?.endsWith(":") ?? false;
        codeTaken = false;
      }
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      if (introducesCode && !codeTaken && line && line.length <= 80) {
        reading.sentences[reading.sentences.length - 1] += ` \`${line}\``;
        codeTaken = true;
      }
      continue;
    }
    if (line) introducesCode = false;
    const isBreak =
      line === "" ||
      line.startsWith("#") ||
      line.startsWith("|") ||
      /^(import|export)\s/.test(line) ||
      /^<\/?[A-Za-z][^>]*>$/.test(line);
    if (isBreak) {
      flush();
      continue;
    }
    // A list item is a thought of its own.
    if (/^([-*+]|\d+\.)\s/.test(line)) flush();
    paragraph.push(line.replace(/^([-*+]|\d+\.)\s+/, ""));
  }
  flush();
  return reading;
}

function plainText(markdown: string): string {
  return markdown
    .replace(/<[^>]+>/g, " ")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/\s+/g, " ")
    .trim();
}

function unquote(value: string): string {
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}
