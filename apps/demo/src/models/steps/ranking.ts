/**
 * The scripted docs model's ranking, said once for both languages it writes: the shell commands
 * its first step runs (built here, quoted here), the ranking's constants, and the reading of what
 * that step prints. The per-language files (`javascript.ts`, `python.ts`) only spell the same
 * arithmetic in their language, over these commands, and print these lines; the demo-python
 * suite checks that both print the same ranking for the same question.
 *
 * The ranking runs in the sandbox, not in the model, because its input (a count line per page per
 * term) is far longer than an observation may be.
 */

/** Reciprocal rank fusion's constant: a page at rank r of a list scores 1 / (FUSION_K + r). */
export const FUSION_K = 10;
/** A term found in a page's path counts this many times over. */
export const PATH_BOOST = 2;
/** Ranked pages printed. */
export const RANKED_SHOWN = 8;
/** Decimals printed for a term's weight and a page's fused score. */
export const WEIGHT_DIGITS = 3;
export const SCORE_DIGITS = 4;

/** One shell word, single-quoted (a quote inside becomes '\''). */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The commands of the ranking step, in the order the code uses them. */
export interface RankCommands {
  /** Prints the number of pages (the corpus size for a term's weight). */
  total: string;
  /** The docs' own semantic search for the question. */
  search: string;
  /** One per term: `path:count` for every page mentioning it (case-insensitive, fixed string). */
  counts: { term: string; command: string }[];
}

export function rankCommands(query: string, terms: readonly string[]): RankCommands {
  return {
    total: "find / -type f | wc -l",
    search: `search ${shellQuote(query)}`,
    counts: terms.map((term) => ({ term, command: `grep -rciF -- ${shellQuote(term)} / | grep -v ':0$'` })),
  };
}

export function catCommand(path: string): string {
  return `cat ${shellQuote(path)}`;
}

/** The pages the ranking step printed, best first. */
export function parseRanking(observation: string): string[] {
  return [...observation.matchAll(/^rank -?[\d.]+ (\/.+?) \{/gm)].map((m) => m[1]!);
}

/** True when the observation holds the ranking step's output (else it is an error). */
export function isRanking(observation: string): boolean {
  return /^weights: /m.test(observation);
}

/** Each term's weight, as the ranking step printed it. */
export function parseWeights(observation: string): Map<string, number> {
  const line = /^weights: (.*)$/m.exec(observation)?.[1] ?? "";
  const weights = new Map<string, number>();
  for (const pair of line.split(" ")) {
    const at = pair.lastIndexOf("=");
    if (at > 0) weights.set(pair.slice(0, at), Number(pair.slice(at + 1)));
  }
  return weights;
}

/** The pages the reading step printed, each after a `==> path <==` line (as `head` marks files). */
export function parsePages(observation: string): { path: string; text: string }[] {
  const parts = observation.split(/^==> (\/.*) <==$/m);
  const pages: { path: string; text: string }[] = [];
  for (let i = 1; i + 1 < parts.length; i += 2)
    pages.push({ path: parts[i]!, text: parts[i + 1]!.replace(/^\r?\n/, "") });
  return pages;
}
