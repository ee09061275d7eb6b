import { PYTHON_DIALECT } from "@atrium/agent";
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

/**
 * A Python literal of strings, lists of strings and dicts of those: their JSON is one (JSON's
 * string escapes are all Python escapes). Booleans, null and numbers are never passed here.
 */
const literal = (value: string | readonly unknown[] | Record<string, unknown>) => JSON.stringify(value);

/** Printed JSON as JavaScript's JSON.stringify writes it, so both languages print the same lines. */
const DUMPS = `def dumps(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))`;

/**
 * The scripted docs model's steps in Python, for Pyodide: tools are plain functions taking keyword
 * arguments and returning dicts and lists; they run one after another (no awaiting).
 */
export const PYTHON_STEPS: StepWriter = {
  language: "python",
  fence: PYTHON_DIALECT.fence.shown,
  rank(query, terms) {
    const commands = rankCommands(query, terms);
    return `import json
import math
import re

${DUMPS}

terms = ${literal(terms)}
counted = bash(command=${literal(commands.total)})["stdout"].strip()
total = (int(counted) if counted.isdigit() else 0) or 1
# A ranked search, then a grep per term (pages with a word starting with it, with a count).
searched = bash(command=${literal(commands.search)})
found = [bash(command=command) for command in ${literal(commands.counts.map((c) => c.command))}]
counts = {}
weights = {}
for term, result in zip(terms, found):
    lines = [line for line in result["stdout"].split("\\n") if line]
    # Rare terms say more about a page than common ones.
    weights[term] = math.log(1 + total / (1 + len(lines)))
    for line in lines:
        cut = line.rfind(":")
        counts.setdefault(line[:cut], {})[term] = int(line[cut + 1 :])


# First pass: the pages worth a closer look, by grep counts fused with the search's order.
def grep_score(path):
    score = 0
    for term, n in counts[path].items():
        score += weights[term] * (1 + math.log(n)) * (${PATH_BOOST} if term in path.lower() else 1)
    return score


scored = [(path, grep_score(path)) for path in counts]
by_grep = [path for path, score in sorted(scored, key=lambda hit: (-hit[1], len(hit[0])))]
by_search = list(dict.fromkeys(line[: line.find(": ")] for line in searched["stdout"].split("\\n") if line.startswith("/")))
fused = {}
for ranking in (by_grep, by_search):
    for rank, path in enumerate(ranking):
        fused[path] = fused.get(path, 0) + 1 / (${FUSION_K} + rank)
pool = [path for path, _ in sorted(fused.items(), key=lambda item: (-item[1], len(item[0])))][:${RERANK_POOL}]
# Second pass: each of those pages' size, title and description.
quoted = " ".join("'" + path.replace("'", "'\\\\''") + "'" for path in pool)
sized = bash(command=${literal(commands.sizes)} + " " + quoted)["stdout"] if pool else ""
marked = bash(command=${literal(commands.fields)} + " " + quoted)["stdout"] if pool else ""
size = {}
for line in sized.split("\\n"):
    m = re.match(r"^ *(\\d+) (/.*)$", line)
    if m:
        size[m.group(2)] = int(m.group(1))
field = {}
for line in marked.split("\\n"):
    path = next((p for p in pool if line.startswith(p + ":")), None)
    if path is None:
        continue
    m = re.match(r"^(title|description):\\s*(.*)$", line[len(path) + 1 :])
    if m:
        field.setdefault(path, {}).setdefault(m.group(1), m.group(2).lower())
sizes = sorted(size.get(path, 0) for path in pool)
median = ((sizes[(len(sizes) - 1) >> 1] + sizes[len(sizes) >> 1]) / 2 or 1) if sizes else 1
all_weight = 0
for term in terms:
    all_weight += weights[term]
filler = set(${literal(TITLE_FILLER)})
function_words = set(${literal(FUNCTION_WORDS)})
asked_in = ${literal(functionWordsOf(query))}


def score(path):
    title = field.get(path, {}).get("title", "")
    description = field.get(path, {}).get("description", "")
    total = 0
    in_title = 0
    for term in terms:
        n = counts.get(path, {}).get(term, 0)
        # BM25: a count that saturates, against the page's size.
        if n > 0:
            total += (weights[term] * n * ${BM25_K1 + 1}) / (n + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * size.get(path, median) / median))
        if term in description:
            total += weights[term] * ${DESCRIPTION_WEIGHT}
        if term in path.lower():
            total += weights[term] * ${PATH_WEIGHT}
        if term in title:
            in_title += weights[term]
    words = [w for w in re.findall(r"[^\\W_]+", title) if len(w) >= 3 and w not in filler]
    if words:
        total += ${TITLE_WEIGHT} * in_title * (len([w for w in words if any(t in w for t in terms)]) / len(words))
    if path in by_search:
        total += (${SEARCH_WEIGHT} * all_weight) / (1 + by_search.index(path))
    # A description without one function word of the question's language: a translation.
    if asked_in and description != "" and not any(w in function_words for w in re.findall(r"[a-z]+", description)):
        total *= ${OTHER_LANGUAGE_FACTOR}
    return total


ranked = sorted(((path, score(path)) for path in pool), key=lambda item: (-item[1], len(item[0])))
print("weights: " + " ".join(f"{term}={weights[term]:.${WEIGHT_DIGITS}f}" for term in terms))
for path, value in ranked[:${RANKED_SHOWN}]:
    print(f"rank {value:.${SCORE_DIGITS}f} {path} " + dumps(counts.get(path, {})))`;
  },
  read(paths) {
    return `for path, command in ${literal(paths.map((path) => [path, catCommand(path)]))}:
    page = bash(command=command)
    print("==> " + path + " <==\\n" + page["stdout"])`;
  },
  finalAnswer(answer, sources) {
    return `final_answer(${JSON.stringify({ answer, sources }, null, 4)})`;
  },
  memory(intent: MemoryIntent, shown: MemoryShown, query: string) {
    const lines = ["import datetime", "import json", "", DUMPS, "", `user = ${literal(shown.user)}`];
    intent.statements.forEach((statement, i) => {
      lines.push(
        `kept${i} = remember(content=${literal(statement)})`,
        `print("remembered " + dumps({"id": kept${i}["id"], "created": kept${i}["created"], "content": ${literal(statement)}}))`,
      );
      const fact = intent.facts.find((candidate) => candidate.statement === statement);
      if (fact) {
        lines.push(
          `fact${i} = kg_add(subject=user, predicate=${literal(fact.predicate)}, object=${literal(fact.object)}, sourceDrawerId=kept${i}["id"])`,
          `print("fact " + dumps(fact${i}["observation"]))`,
        );
      }
    });
    if (intent.reference) {
      lines.push(
        `hits = recall(query=${literal(query)}, room=${literal(shown.room)})["hits"]`,
        "for hit in hits:",
        `    print("recalled " + dumps(hit["content"]))`,
        // Facts true now (to the millisecond, as JavaScript's toISOString): an ended (forgotten)
        // fact is history, not something to repeat.
        `now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"`,
        'facts = kg_query(subject=user, asOf=now)["facts"]',
        "for fact in facts:",
        `    if not fact.get("validTo"):`,
        `        print("known " + dumps(fact["text"]))`,
      );
    }
    return lines.join("\n");
  },
};
