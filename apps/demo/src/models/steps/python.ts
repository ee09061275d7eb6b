import { PYTHON_DIALECT } from "@atrium/agent";
import type { MemoryIntent } from "../memory-intent.js";
import type { MemoryShown } from "../scripted-memory.js";
import {
  catCommand,
  FUSION_K,
  PATH_BOOST,
  RANKED_SHOWN,
  rankCommands,
  SCORE_DIGITS,
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

${DUMPS}

terms = ${literal(terms)}
counted = bash(command=${literal(commands.total)})["stdout"].strip()
total = (int(counted) if counted.isdigit() else 0) or 1
# A ranked search, then a grep per term (pages mentioning it, with a count).
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
ranked = sorted(fused.items(), key=lambda item: (-item[1], len(item[0])))
print("weights: " + " ".join(f"{term}={weights[term]:.${WEIGHT_DIGITS}f}" for term in terms))
for path, score in ranked[:${RANKED_SHOWN}]:
    print(f"rank {score:.${SCORE_DIGITS}f} {path} " + dumps(counts.get(path, {})))`;
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
          `fact${i} = kg_add(subject=user, predicate=${literal(fact.predicate)}, object=${literal(fact.object)}, source_drawer_id=kept${i}["id"])`,
          `print("fact " + dumps(fact${i}["observation"]))`,
        );
      }
    });
    if (intent.reference) {
      lines.push(
        `hits = recall(query=${literal(query)}, room=${literal(shown.room)})`,
        "for hit in hits:",
        `    print("recalled " + dumps(hit["content"]))`,
        // Facts true now (to the millisecond, as JavaScript's toISOString): an ended (forgotten)
        // fact is history, not something to repeat.
        `now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"`,
        "facts = kg_query(subject=user, as_of=now)",
        "for fact in facts:",
        `    if not fact.get("valid_to"):`,
        `        print("known " + dumps(fact["text"]))`,
      );
    }
    return lines.join("\n");
  },
};
