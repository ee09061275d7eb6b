import { JAVASCRIPT_DIALECT } from "@atrium/agent";
import type { MemoryIntent } from "../memory-intent.js";
import type { MemoryShown } from "../scripted-memory.js";
import {
  BM25_B,
  BM25_K1,
  catCommand,
  DESCRIPTION_WEIGHT,
  FUNCTION_WORDS,
  FUSION_K,
  functionWordsOf,
  OTHER_LANGUAGE_FACTOR,
  PATH_BOOST,
  PATH_WEIGHT,
  RANKED_SHOWN,
  RERANK_POOL,
  rankCommands,
  SCORE_DIGITS,
  SEARCH_WEIGHT,
  TITLE_FILLER,
  TITLE_WEIGHT,
  WEIGHT_DIGITS,
} from "./ranking.js";
import type { StepWriter } from "./step-writer.js";

const json = (value: unknown) => JSON.stringify(value);

/** The scripted docs model's steps in JavaScript, for QuickJS: tools take one object and are awaited. */
export const JAVASCRIPT_STEPS: StepWriter = {
  language: "javascript",
  fence: JAVASCRIPT_DIALECT.fence.shown,
  rank(query, terms) {
    const commands = rankCommands(query, terms);
    return `const terms = ${json(terms)};
const total = Number((await bash({ command: ${json(commands.total)} })).stdout.trim()) || 1;
// All at once: a grep per term (pages with a word starting with it, with a count) and a ranked search.
const [searched, ...found] = await Promise.all([
  bash({ command: ${json(commands.search)} }),
  ...${json(commands.counts.map((c) => c.command))}.map((command) => bash({ command })),
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
// First pass: the pages worth a closer look, by grep counts fused with the search's order.
const byGrep = Object.entries(counts)
  .map(([path, hits]) => {
    let score = 0;
    for (const [term, n] of Object.entries(hits)) {
      score += weights[term] * (1 + Math.log(n)) * (path.toLowerCase().includes(term) ? ${PATH_BOOST} : 1);
    }
    return { path, score };
  })
  .sort((a, b) => b.score - a.score || a.path.length - b.path.length)
  .map((hit) => hit.path);
const bySearch = [...new Set(searched.stdout.split("\\n").filter((l) => l.startsWith("/")).map((l) => l.slice(0, l.indexOf(": "))))];
const fused = {};
for (const list of [byGrep, bySearch]) list.forEach((path, rank) => (fused[path] = (fused[path] ?? 0) + 1 / (${FUSION_K} + rank)));
const pool = Object.entries(fused).sort((a, b) => b[1] - a[1] || a[0].length - b[0].length).slice(0, ${RERANK_POOL}).map(([path]) => path);
// Second pass: each of those pages' size, title and description.
const quoted = pool.map((path) => "'" + path.replaceAll("'", "'\\\\''") + "'").join(" ");
const [sized, marked] = pool.length === 0 ? [{ stdout: "" }, { stdout: "" }] : await Promise.all([
  bash({ command: ${json(commands.sizes)} + " " + quoted }),
  bash({ command: ${json(commands.fields)} + " " + quoted }),
]);
const size = {};
for (const line of sized.stdout.split("\\n")) {
  const m = /^ *(\\d+) (\\/.*)$/.exec(line);
  if (m) size[m[2]] = Number(m[1]);
}
const field = {};
for (const line of marked.stdout.split("\\n")) {
  const path = pool.find((p) => line.startsWith(p + ":"));
  if (path === undefined) continue;
  const m = /^(title|description):\\s*(.*)$/.exec(line.slice(path.length + 1));
  if (m) (field[path] ??= {})[m[1]] ??= m[2].toLowerCase();
}
const sizes = pool.map((path) => size[path] ?? 0).sort((a, b) => a - b);
const median = sizes.length === 0 ? 1 : (sizes[(sizes.length - 1) >> 1] + sizes[sizes.length >> 1]) / 2 || 1;
const allWeight = terms.reduce((sum, term) => sum + weights[term], 0);
const filler = new Set(${json(TITLE_FILLER)});
const functionWords = new Set(${json(FUNCTION_WORDS)});
const askedIn = ${json(functionWordsOf(query))};
const score = (path) => {
  const title = field[path]?.title ?? "";
  const description = field[path]?.description ?? "";
  let sum = 0;
  let inTitle = 0;
  for (const term of terms) {
    const n = counts[path]?.[term] ?? 0;
    // BM25: a count that saturates, against the page's size.
    if (n > 0) sum += (weights[term] * n * ${BM25_K1 + 1}) / (n + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * (size[path] ?? median) / median));
    if (description.includes(term)) sum += weights[term] * ${DESCRIPTION_WEIGHT};
    if (path.toLowerCase().includes(term)) sum += weights[term] * ${PATH_WEIGHT};
    if (title.includes(term)) inTitle += weights[term];
  }
  const words = (title.match(/[\\p{L}\\p{N}]+/gu) ?? []).filter((w) => w.length >= 3 && !filler.has(w));
  if (words.length > 0) sum += ${TITLE_WEIGHT} * inTitle * (words.filter((w) => terms.some((t) => w.includes(t))).length / words.length);
  const at = bySearch.indexOf(path);
  if (at >= 0) sum += (${SEARCH_WEIGHT} * allWeight) / (1 + at);
  // A description without one function word of the question's language: a translation.
  if (askedIn.length > 0 && description !== "" && !(description.match(/[a-z]+/g) ?? []).some((w) => functionWords.has(w))) sum *= ${OTHER_LANGUAGE_FACTOR};
  return sum;
};
const ranked = pool.map((path) => [path, score(path)]).sort((a, b) => b[1] - a[1] || a[0].length - b[0].length);
console.log("weights: " + terms.map((t) => t + "=" + weights[t].toFixed(${WEIGHT_DIGITS})).join(" "));
for (const [path, score] of ranked.slice(0, ${RANKED_SHOWN})) console.log("rank " + score.toFixed(${SCORE_DIGITS}) + " " + path + " " + JSON.stringify(counts[path] ?? {}));`;
  },
  read(paths) {
    return `for (const [path, command] of ${json(paths.map((path) => [path, catCommand(path)]))}) {
  const page = await bash({ command });
  console.log("==> " + path + " <==\\n" + page.stdout);
}`;
  },
  finalAnswer(answer, sources) {
    return `final_answer(${JSON.stringify({ answer, sources }, null, 2)});`;
  },
  memory(intent: MemoryIntent, shown: MemoryShown, query: string) {
    const lines = [`const user = ${json(shown.user)};`];
    intent.statements.forEach((statement, i) => {
      lines.push(
        `const kept${i} = await remember({ content: ${json(statement)} });`,
        `console.log("remembered " + JSON.stringify({ id: kept${i}.id, created: kept${i}.created, content: ${json(statement)} }));`,
      );
      const fact = intent.facts.find((candidate) => candidate.statement === statement);
      if (fact) {
        lines.push(
          `const fact${i} = await kg_add({ subject: user, predicate: ${json(fact.predicate)}, object: ${json(fact.object)}, sourceDrawerId: kept${i}.id });`,
          `console.log("fact " + JSON.stringify(fact${i}.observation));`,
        );
      }
    });
    if (intent.reference) {
      lines.push(
        `const { hits } = await recall({ query: ${json(query)}, room: ${json(shown.room)} });`,
        `for (const hit of hits) console.log("recalled " + JSON.stringify(hit.content));`,
        // Facts true now: an ended (forgotten) fact is history, not something to repeat.
        "const { facts } = await kg_query({ subject: user, asOf: new Date().toISOString() });",
        `for (const fact of facts) if (!fact.validTo) console.log("known " + JSON.stringify(fact.text));`,
      );
    }
    return lines.join("\n");
  },
};
