import { keyTerms, stemOf } from "./key-terms.js";
import { factOf } from "./memory-intent.js";

/** What the system prompt shows the model about memory: the user, the room, the tools it has. */
export interface MemoryShown {
  user: string;
  room: string;
  /** recall, remember, kg_query and kg_add are all among the tools (as JavaScript or Python functions). */
  hasTools: boolean;
}

/**
 * Reads the memory section the assistant adds to the instructions (`memoryGuide`) and the tool
 * signatures; undefined when the prompt has no memory (the assistant runs without one).
 */
export function memoryShown(system: string): MemoryShown | undefined {
  const user = /^Memory: you are talking with the user ("(?:[^"\\]|\\.)*")/m.exec(system)?.[1];
  if (user === undefined) return undefined;
  const room = /recall\(\{ query, room: ("(?:[^"\\]|\\.)*") \}\)/.exec(system)?.[1];
  const hasTools = ["recall", "remember", "kg_query", "kg_add"].every(
    (name) => system.includes(`async function ${name}(`) || system.includes(`\ndef ${name}(`),
  );
  return {
    user: JSON.parse(user) as string,
    room: room ? (JSON.parse(room) as string) : "memories",
    hasTools,
  };
}

/** What the memory step printed, read back from its observation. */
export interface MemoryObservation {
  remembered: { id: string; created: boolean; content: string }[];
  recalled: string[];
  known: string[];
}

export function parseMemoryObservation(observation: string): MemoryObservation {
  const read = (prefix: string) =>
    [...observation.matchAll(new RegExp(`^${prefix} (.+)$`, "gm"))].map((m) => JSON.parse(m[1]!) as unknown);
  return {
    remembered: read("remembered") as MemoryObservation["remembered"],
    recalled: read("recalled") as string[],
    known: read("known") as string[],
  };
}

/**
 * The recalled memories about what the question refers to: those mentioning its topic word
 * ("prefer", "project"), or all of them when it names none ("what do you remember about me?").
 */
export function relevantMemories(recalled: readonly string[], topic: string): string[] {
  if (!topic) return [...recalled];
  const stem = stemOf(topic);
  return recalled.filter((content) => content.toLowerCase().includes(stem));
}

/** The facts about the topic, by their predicate ("prefers" for "prefer", "project_uses" for "project"). */
export function relevantFacts(known: readonly string[], topic: string): string[] {
  if (!topic) return [...known];
  const stem = stemOf(topic);
  return known.filter((line) => (/ — (\S+) → /.exec(line)?.[1] ?? "").includes(stem));
}

/**
 * Words to grep the docs for from a memory about the user's thing: a fact's object ("GitLab" of
 * "My project uses GitLab."), else the memory's key terms, minus the topic itself.
 */
export function memoryTerms(memories: readonly string[], topic: string, max: number): string[] {
  const terms: string[] = [];
  for (const memory of memories) {
    const fact = factOf(memory);
    for (const term of keyTerms(fact ? fact.object : memory, max)) {
      if (term !== stemOf(topic) && !terms.includes(term)) terms.push(term);
    }
  }
  return terms.slice(0, max);
}

/** "You told me: "…" and "…"." — the recalled text quoted exactly. */
export function quoteMemories(memories: readonly string[]): string {
  const quoted = memories.map((memory) => JSON.stringify(memory)).join(" and ");
  return `You told me: ${quoted}${/[.!?]$/.test(memories.at(-1) ?? "") ? "" : "."}`;
}
