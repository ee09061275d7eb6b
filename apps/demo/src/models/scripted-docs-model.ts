import { ScriptedModel } from "@atrium/agent";
import { type CodeLanguage, type Message, textOf } from "@atrium/spec";
import { type DemoLimits, resolveDemoLimits } from "../limits.js";
import { keyTerms } from "./key-terms.js";
import { readMemoryIntent } from "./memory-intent.js";
import { readPage } from "./page-sentences.js";
import {
  memoryShown,
  memoryTerms,
  parseMemoryObservation,
  quoteMemories,
  relevantFacts,
  relevantMemories,
} from "./scripted-memory.js";
import { JAVASCRIPT_STEPS } from "./steps/javascript.js";
import { isRanking, parsePages, parseRanking, parseWeights } from "./steps/ranking.js";
import type { StepWriter } from "./steps/step-writer.js";
import { STEP_WRITERS, writerForPrompt } from "./steps/writer-for-prompt.js";

export const SCRIPTED_DOCS_MODEL_ID = "scripted-docs";

/** The executor languages the scripted docs model writes its steps in. */
export const SCRIPTED_DOCS_LANGUAGES: readonly CodeLanguage[] = STEP_WRITERS.map((writer) => writer.language);

/**
 * A deterministic stand-in for a language model that plays the agent's part honestly, from what
 * it is shown and nothing else: it never knows an answer or a page in advance.
 *
 * 1. From the question it picks key terms and writes code that greps the docs for each one
 *    (through the `bash` tool) and ranks pages by how often, and how many, terms they mention.
 * 2. From that step's printed ranking it writes code that `cat`s the best pages.
 * 3. From the page text it read it answers with the sentences that share most weighted terms
 *    with the question, citing the pages those sentences came from: a citation always comes from
 *    tool output, so if a page moves, the cited path follows.
 *
 * With a memory (the instructions name the user and the tools include recall and remember), a
 * message that states something about the user ("remember that …", "I prefer …", "my project uses
 * …") first files it with `remember` (and `kg_add` for a clear subject–predicate–object), and a
 * question that refers to the user ("what do I prefer?", "… for my project") first calls `recall`
 * and `kg_query`; the answer quotes what those tools printed, and a docs question greps for the
 * recalled memory's words too. Without a memory it says it has none.
 *
 * It writes its code in the language the system prompt asks for, which the code agent renders
 * from its executor's declared language: JavaScript for QuickJS, Python for Pyodide (the steps of
 * each are in `steps/`; everything else is shared). Each reply is a function of the conversation
 * so far, so the same docs give the same answer in either language.
 */
export function scriptedDocsModel(limits: Partial<DemoLimits> = {}): ScriptedModel {
  const resolved = resolveDemoLimits(limits);
  return new ScriptedModel((messages) => reply(messages, resolved), { id: SCRIPTED_DOCS_MODEL_ID });
}

function reply(messages: readonly Message[], limits: Readonly<DemoLimits>): string {
  const taskAt = messages.findLastIndex(
    (m) => m.role === "user" && textOf(m.content).startsWith("New task:\n"),
  );
  const question = taskAt < 0 ? "" : textOf(messages[taskAt]!.content).slice("New task:\n".length);
  const observations = messages
    .slice(taskAt + 1)
    .filter((m) => m.role === "user" && textOf(m.content).startsWith("Observation:"))
    .map((m) => textOf(m.content));
  const system = messages.find((m) => m.role === "system");
  const systemText = system ? textOf(system.content) : "";
  // Without a code agent's prompt (or for a language it does not write), the default sandbox's.
  const writer = writerForPrompt(systemText) ?? JAVASCRIPT_STEPS;
  const answer = (text: string, sources: string[]) => answerStep(writer, text, sources);
  const shown = memoryShown(systemText);
  const intent = readMemoryIntent(question);
  const wantsMemory = intent.statements.length > 0 || intent.reference !== undefined;

  if (!shown?.hasTools) {
    // No memory in this session: say so rather than pretend, and answer docs questions as usual.
    if (intent.statements.length > 0 && !intent.docsQuestion) {
      return answer(
        "I have no memory in this session, so I cannot keep that for next time (the demo runs with --no-memory, or without a palace).",
        [],
      );
    }
    if (intent.reference?.kind === "about-user" && !intent.docsQuestion) {
      return answer("I have no memory in this session, so I do not know what you told me before.", []);
    }
    return docsReply(writer, question.trim(), [], observations, limits, "");
  }
  if (!wantsMemory) return docsReply(writer, question.trim(), [], observations, limits, "");

  // Step 1 files what the user stated and recalls what the question refers to; the rest follows
  // from what those tools printed.
  if (observations.length === 0) {
    const what = [
      ...(intent.statements.length > 0
        ? [`remember what you told me (${intent.statements.map((s) => JSON.stringify(s)).join(", ")})`]
        : []),
      ...(intent.reference ? ["recall what I know about you that this question refers to"] : []),
    ];
    return step(writer, `I will first ${what.join(" and ")}.`, writer.memory(intent, shown, question.trim()));
  }
  const memory = parseMemoryObservation(observations[0]!);
  if (intent.statements.length > 0 && memory.remembered.length === 0) {
    // A person said no (or nobody could be asked): their reason, as the code received it.
    const denied = /Tool "[^"\n]+" was not approved[^\n]*/.exec(observations[0]!)?.[0];
    if (denied) return answer(`I did not file that in memory: ${denied}`, []);
    // The step failed (its observation is the error): say so instead of claiming it was kept.
    return answer(
      `I could not file that in memory: ${observations[0]!.split("\n").slice(1, 3).join(" ")}`,
      [],
    );
  }
  const noted =
    memory.remembered.length > 0
      ? `Noted: I will remember ${memory.remembered.map((kept) => JSON.stringify(kept.content)).join(" and ")}.`
      : "";
  const topic = intent.reference?.topic ?? "";
  const memories = intent.reference ? relevantMemories(memory.recalled, topic) : [];
  const facts = intent.reference ? relevantFacts(memory.known, topic) : [];

  if (intent.reference?.kind === "about-user") {
    const told =
      memories.length > 0
        ? `${quoteMemories(memories)}${facts.length > 0 ? ` (Known facts: ${facts.join("; ")}.)` : ""}`
        : `I don't remember anything you told me about ${topic ? `what you ${topic === "prefer" ? "prefer" : `your ${topic}`}` : "you"}; tell me and I will remember it.`;
    return answer([noted, told].filter(Boolean).join(" "), []);
  }
  if (!intent.docsQuestion) {
    return answer(noted || "There was nothing to remember.", []);
  }
  const extra = memoryTerms(memories, topic, limits.maxScriptedTerms);
  const prefix = [
    noted,
    memories.length > 0
      ? quoteMemories(memories)
      : intent.reference
        ? `I don't remember anything about your ${topic}, so here is the general answer.`
        : "",
  ]
    .filter(Boolean)
    .join(" ");
  // "my project" names the user's thing, not a subject of the docs: its words come from memory.
  const ownWords = topic
    ? new RegExp(`(?:\\s+(?:for|in|on|with|to))?\\s+my\\s+${topic}\\b`, "gi")
    : undefined;
  const docsQuestion = ownWords ? intent.docsQuestion.replace(ownWords, "") : intent.docsQuestion;
  return docsReply(writer, docsQuestion, extra, observations.slice(1), limits, prefix);
}

/**
 * The docs part: grep and search for the question's key terms (a recalled memory's terms first),
 * read the best pages, answer from their sentences; `prefix` goes before the answer.
 */
function docsReply(
  writer: StepWriter,
  question: string,
  extraTerms: readonly string[],
  observations: readonly string[],
  limits: Readonly<DemoLimits>,
  prefix: string,
): string {
  const terms = [...new Set([...extraTerms, ...keyTerms(question, limits.maxScriptedTerms)])].slice(
    0,
    limits.maxScriptedTerms,
  );
  const withPrefix = (text: string) => (prefix ? `${prefix} ${text}` : text);
  const answer = (text: string, sources: string[]) => answerStep(writer, text, sources);
  if (terms.length === 0) {
    return answer(
      withPrefix("The question has no words to search the docs for; ask about a feature or a task."),
      [],
    );
  }
  switch (observations.length) {
    case 0: {
      const query =
        extraTerms.length > 0 ? `${question} ${extraTerms.join(" ")}`.replace(/\s+/g, " ") : question;
      return step(
        writer,
        `I will grep the docs for the key terms ${terms.map((t) => `"${t}"`).join(", ")}, search them for the question, and rank the pages both find.`,
        writer.rank(query, terms),
      );
    }
    case 1: {
      if (!isRanking(observations[0]!)) {
        return answer(
          withPrefix(`My search of the docs failed: ${observations[0]!.split("\n").slice(1, 3).join(" ")}`),
          [],
        );
      }
      const ranked = parseRanking(observations[0]!);
      if (ranked.length === 0) {
        return answer(
          withPrefix(`No page of the docs mentions ${terms.map((t) => `"${t}"`).join(" or ")}.`),
          [],
        );
      }
      const best = ranked.slice(0, limits.scriptedPagesRead);
      return step(
        writer,
        `The best-ranked pages are ${best.join(" and ")}; I will read them.`,
        writer.read(best),
      );
    }
    default: {
      const weights = parseWeights(observations[0]!);
      const pages = parsePages(observations[1]!);
      const { text, sources } = answerFromPages(pages, weights, limits.scriptedAnswerSentences);
      return answer(withPrefix(text), sources);
    }
  }
}

function step(writer: StepWriter, thought: string, code: string): string {
  return `Thought: ${thought}\n\`\`\`${writer.fence}\n${code}\n\`\`\``;
}

function answerStep(writer: StepWriter, text: string, sources: string[]): string {
  return step(writer, "I can answer now.", writer.finalAnswer(text, sources));
}

/**
 * The answer: the sentences (a page's description counts as one) with the highest sum of term
 * weights, best page first on ties, at most `count`; then cut to the pages they came from. The
 * first is the best sentence of the best-ranked page that has one: the ranking saw the whole page
 * (its title, its size, every count, the search), a sentence only its own words, so a sentence of
 * the second page that shares more words with the question does not make that page the answer.
 */
function answerFromPages(
  pages: readonly { path: string; text: string }[],
  weights: ReadonlyMap<string, number>,
  count: number,
): { text: string; sources: string[] } {
  const candidates: { path: string; sentence: string; score: number; order: number }[] = [];
  let order = 0;
  for (const { path, text } of pages) {
    const reading = readPage(text);
    const sentences = reading.description ? [reading.description, ...reading.sentences] : reading.sentences;
    for (const sentence of sentences) {
      const lower = sentence.toLowerCase();
      let score = 0;
      for (const [term, weight] of weights) if (lower.includes(term)) score += weight;
      // Very long sentences are usually lists pasted into prose: slightly less quotable.
      if (sentence.length > 400) score *= 0.8;
      candidates.push({ path, sentence, score, order: order++ });
    }
  }
  const scored = candidates.filter((c) => c.score > 0).sort((a, b) => b.score - a.score || a.order - b.order);
  // Pages come in ranked order: the first scored sentence's page is the best page with one.
  const firstPage = scored.reduce<string | undefined>(
    (best, c) => (best === undefined || pageRank(pages, c.path) < pageRank(pages, best) ? c.path : best),
    undefined,
  );
  const lead = scored.find((c) => c.path === firstPage);
  const chosen = lead ? [lead, ...scored.filter((c) => c !== lead)].slice(0, count) : [];
  if (chosen.length === 0) return { text: "The pages I read do not say; try other words.", sources: [] };
  chosen.sort((a, b) => a.order - b.order);
  const sources = [...new Set(chosen.map((c) => c.path))];
  return { text: chosen.map((c) => c.sentence).join(" "), sources };
}

function pageRank(pages: readonly { path: string }[], path: string): number {
  return pages.findIndex((page) => page.path === path);
}
