import { ScriptedModel } from "@atrium/agent";
import { type Message, textOf } from "@atrium/spec";
import { type DemoLimits, resolveDemoLimits } from "../limits.js";
import { keyTerms } from "./key-terms.js";
import { readMemoryIntent } from "./memory-intent.js";
import { readPage } from "./page-sentences.js";
import {
  memoryCode,
  memoryShown,
  memoryTerms,
  parseMemoryObservation,
  quoteMemories,
  relevantFacts,
  relevantMemories,
} from "./scripted-memory.js";

export const SCRIPTED_DOCS_MODEL_ID = "scripted-docs";

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
 * Each reply is a function of the conversation so far, so the same docs give the same answer.
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
  const shown = memoryShown(system ? textOf(system.content) : "");
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
    return docsReply(question.trim(), [], observations, limits, "");
  }
  if (!wantsMemory) return docsReply(question.trim(), [], observations, limits, "");

  // Step 1 files what the user stated and recalls what the question refers to; the rest follows
  // from what those tools printed.
  if (observations.length === 0) {
    const what = [
      ...(intent.statements.length > 0
        ? [`remember what you told me (${intent.statements.map((s) => JSON.stringify(s)).join(", ")})`]
        : []),
      ...(intent.reference ? ["recall what I know about you that this question refers to"] : []),
    ];
    return step(`I will first ${what.join(" and ")}.`, memoryCode(intent, shown, question.trim()));
  }
  const memory = parseMemoryObservation(observations[0]!);
  if (intent.statements.length > 0 && memory.remembered.length === 0) {
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
  const extra = memoryTerms(memories, topic, limits.scriptedMaxTerms);
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
  return docsReply(docsQuestion, extra, observations.slice(1), limits, prefix);
}

/**
 * The docs part: grep and search for the question's key terms (a recalled memory's terms first),
 * read the best pages, answer from their sentences; `prefix` goes before the answer.
 */
function docsReply(
  question: string,
  extraTerms: readonly string[],
  observations: readonly string[],
  limits: Readonly<DemoLimits>,
  prefix: string,
): string {
  const terms = [...new Set([...extraTerms, ...keyTerms(question, limits.scriptedMaxTerms)])].slice(
    0,
    limits.scriptedMaxTerms,
  );
  const withPrefix = (text: string) => (prefix ? `${prefix} ${text}` : text);
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
        `I will grep the docs for the key terms ${terms.map((t) => `"${t}"`).join(", ")}, search them for the question, and rank the pages both find.`,
        rankCode(query, terms),
      );
    }
    case 1: {
      if (!/^weights: /m.test(observations[0]!)) {
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
      return step(`The best-ranked pages are ${best.join(" and ")}; I will read them.`, catCode(best));
    }
    default: {
      const weights = parseWeights(observations[0]!);
      const pages = parsePages(observations[1]!);
      const { text, sources } = answerFromPages(pages, weights, limits.scriptedAnswerSentences);
      return answer(withPrefix(text), sources);
    }
  }
}

const step = (thought: string, code: string) => `Thought: ${thought}\n\`\`\`js\n${code}\n\`\`\``;

function answer(text: string, sources: string[]): string {
  return step("I can answer now.", `final_answer(${JSON.stringify({ answer: text, sources }, null, 2)});`);
}

/**
 * The code of step 1: a grep per key term (pages ranked by how often, and how many, terms they
 * mention, rare terms weighing more) and the docs' own `search`, fused by reciprocal rank. The
 * ranking runs in the sandbox, over the tools' own output.
 */
function rankCode(question: string, terms: readonly string[]): string {
  return `const question = ${JSON.stringify(question)};
const terms = ${JSON.stringify(terms)};
const quote = (text) => "'" + text.replaceAll("'", "'\\\\''") + "'";
const total = Number((await bash({ command: "find / -type f | wc -l" })).stdout.trim()) || 1;
// All at once: a grep per term (pages mentioning it, with a count) and a ranked search.
const [searched, ...found] = await Promise.all([
  bash({ command: "search " + quote(question) }),
  ...terms.map((term) => bash({ command: "grep -rciF -- " + quote(term) + " / | grep -v ':0$'" })),
]);
const counts = {};
const weights = {};
terms.forEach((term, i) => {
  const lines = found[i].stdout.split("\\n").filter(Boolean);
  // Rare terms say more about a page than common ones.
  weights[term] = Math.log(1 + total / (1 + lines.length));
  for (const line of lines) {
    const cut = line.lastIndexOf(":");
    (counts[line.slice(0, cut)] ??= {})[term] = Number(line.slice(cut + 1));
  }
});
const byGrep = Object.entries(counts)
  .map(([path, hits]) => {
    let score = 0;
    for (const [term, n] of Object.entries(hits)) {
      score += weights[term] * (1 + Math.log(n)) * (path.toLowerCase().includes(term) ? 2 : 1);
    }
    return { path, score };
  })
  .sort((a, b) => b.score - a.score || a.path.length - b.path.length)
  .map((hit) => hit.path);
const bySearch = [...new Set(searched.stdout.split("\\n").filter((l) => l.startsWith("/")).map((l) => l.slice(0, l.indexOf(": "))))];
const fused = {};
for (const list of [byGrep, bySearch]) list.forEach((path, rank) => (fused[path] = (fused[path] ?? 0) + 1 / (10 + rank)));
const ranked = Object.entries(fused).sort((a, b) => b[1] - a[1] || a[0].length - b[0].length);
console.log("weights: " + terms.map((t) => t + "=" + weights[t].toFixed(3)).join(" "));
for (const [path, score] of ranked.slice(0, 8)) console.log("rank " + score.toFixed(4) + " " + path + " " + JSON.stringify(counts[path] ?? {}));`;
}

function catCode(paths: readonly string[]): string {
  return `for (const path of ${JSON.stringify(paths)}) {
  const page = await bash({ command: "cat " + "'" + path.replaceAll("'", "'\\\\''") + "'" });
  console.log("==> " + path + " <==\\n" + page.stdout);
}`;
}

function parseRanking(observation: string): string[] {
  return [...observation.matchAll(/^rank -?[\d.]+ (\/.+?) \{/gm)].map((m) => m[1]!);
}

function parseWeights(observation: string): Map<string, number> {
  const line = /^weights: (.*)$/m.exec(observation)?.[1] ?? "";
  const weights = new Map<string, number>();
  for (const pair of line.split(" ")) {
    const at = pair.lastIndexOf("=");
    if (at > 0) weights.set(pair.slice(0, at), Number(pair.slice(at + 1)));
  }
  return weights;
}

function parsePages(observation: string): { path: string; text: string }[] {
  const parts = observation.split(/^==> (\/.*) <==$/m);
  const pages: { path: string; text: string }[] = [];
  for (let i = 1; i + 1 < parts.length; i += 2)
    pages.push({ path: parts[i]!, text: parts[i + 1]!.replace(/^\r?\n/, "") });
  return pages;
}

/**
 * The answer: the sentences (a page's description counts as one) with the highest sum of term
 * weights, best page first on ties, at most `count`; then cut to the pages they came from.
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
  const chosen = candidates
    .filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, count);
  if (chosen.length === 0) return { text: "The pages I read do not say; try other words.", sources: [] };
  chosen.sort((a, b) => a.order - b.order);
  const sources = [...new Set(chosen.map((c) => c.path))];
  return { text: chosen.map((c) => c.sentence).join(" "), sources };
}
