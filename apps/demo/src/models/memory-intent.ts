/**
 * What the scripted docs model reads in a message about memory, from its words alone: the
 * sentences the user wants kept ("remember that …", "I prefer …", "my project uses …"), the
 * knowledge-graph facts among them (a clear subject–predicate–object), and whether a question
 * refers to the user ("what do I prefer?", "which framework does my project use?", "… for my
 * project") and so needs a recall first. It knows nothing about any user or corpus.
 */
export interface MemoryIntent {
  /** Sentences to remember, verbatim (a leading "remember that" dropped). */
  statements: string[];
  /** Facts about the user in those sentences: `predicate` e.g. "prefers", "project_uses". */
  facts: { statement: string; predicate: string; object: string }[];
  /**
   * "about-user": the question asks what the user said ("what do I prefer?") and is answered
   * from memory; "for-user": a docs question about the user's own thing ("… for my project"),
   * answered from the docs with what memory says about that thing. `topic` is the word the
   * question uses for it ("prefer", "project").
   */
  reference?: { kind: "about-user" | "for-user"; topic: string };
  /** The rest of the message: a docs question, or "" when the message only stated things. */
  docsQuestion: string;
}

/** "my docs", "my site": every docs question says it; it refers to the docs, not to the user. */
const DOCS_NOUNS = new Set([
  "doc",
  "docs",
  "documentation",
  "site",
  "website",
  "page",
  "pages",
  "content",
  "repo",
  "repository",
]);

const REMEMBER = /^(?:please\s+)?(?:remember|note|keep in mind)(?:\s+that)?[:,]?\s+(.+)$/is;
// Only clear statements about oneself: "I want to …" or "I need …" usually opens a docs question.
const ABOUT_SELF = /^(?:I\s+(?:prefer|like|use|am)\b|I'm\b|my\s+\p{L}+\s+(?:uses|is|runs|has)\b)/iu;
const ASKS_PREFERENCE = /\b(?:do|did|would)\s+I\s+(prefer|like|want|use)\b/i;
const ASKS_ABOUT_MINE = /\b(?:does|did|is|was)\s+my\s+(\p{L}+)/iu;
const ASKS_MEMORY = /\bwhat\s+do\s+you\s+(?:remember|know)\s+about\s+me\b/i;
const FOR_MINE = /\b(?:for|in|on|with|to)\s+my\s+(\p{L}+)/giu;

export function readMemoryIntent(message: string): MemoryIntent {
  const statements: string[] = [];
  const facts: MemoryIntent["facts"] = [];
  const rest: string[] = [];
  let reference: MemoryIntent["reference"];
  for (const sentence of sentencesOf(message)) {
    const isQuestion = /\?\s*$/.test(sentence);
    const kept = isQuestion ? undefined : (REMEMBER.exec(sentence)?.[1] ?? sentence);
    if (kept !== undefined && (REMEMBER.test(sentence) || ABOUT_SELF.test(kept))) {
      const statement = capitalized(kept.trim());
      statements.push(statement);
      const fact = factOf(statement);
      if (fact) facts.push({ statement, ...fact });
      continue;
    }
    if (isQuestion && !reference) {
      const preference = ASKS_PREFERENCE.exec(sentence)?.[1];
      const mine = ASKS_ABOUT_MINE.exec(sentence)?.[1];
      if (preference) {
        reference = { kind: "about-user", topic: preference.toLowerCase() };
        continue;
      }
      if (mine && !DOCS_NOUNS.has(mine.toLowerCase())) {
        reference = { kind: "about-user", topic: mine.toLowerCase() };
        continue;
      }
      if (ASKS_MEMORY.test(sentence)) {
        reference = { kind: "about-user", topic: "" };
        continue;
      }
      const forMine = [...sentence.matchAll(FOR_MINE)]
        .map((m) => m[1]!.toLowerCase())
        .find((noun) => !DOCS_NOUNS.has(noun));
      if (forMine) reference = { kind: "for-user", topic: forMine };
    }
    rest.push(sentence);
  }
  return {
    statements,
    facts,
    ...(reference ? { reference } : {}),
    docsQuestion: rest.join(" ").trim(),
  };
}

/**
 * "I prefer X" → prefers X; "I use/like X" → uses/likes X; "My project uses X" → project_uses X;
 * "My project is hosted on X" → project_is_hosted_on X. Anything else is kept as a memory only.
 */
export function factOf(statement: string): { predicate: string; object: string } | undefined {
  const text = statement.replace(/[.!]+\s*$/, "").trim();
  const mine =
    /^my\s+(\p{L}+)\s+((?:uses|is hosted on|is built with|is deployed on|runs on|is))\s+(.+)$/iu.exec(text);
  if (mine) {
    const predicate = `${mine[1]!.toLowerCase()}_${mine[2]!.toLowerCase().replace(/\s+/g, "_")}`;
    return { predicate, object: mine[3]!.trim() };
  }
  const own = /^I\s+(prefer|like|use)\s+(.+)$/i.exec(text);
  if (own) return { predicate: `${own[1]!.toLowerCase()}s`, object: own[2]!.trim() };
  return undefined;
}

function sentencesOf(message: string): string[] {
  return message
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
