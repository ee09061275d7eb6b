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

/**
 * Step 1 ranks in two passes. The first is cheap and wide: every page a term's grep found, scored
 * by its counts, fused with the search's order by reciprocal rank fusion (a page at rank r of a
 * list scores 1 / (FUSION_K + r)). The first RERANK_POOL pages of that go to the second pass,
 * which reads two more things about each (its size, and its front matter's title and
 * description) and scores it the way a reader skims a result list:
 *
 * - BM25 over the grep counts: a term's weight (rarer terms weigh more) times a count that
 *   saturates (BM25_K1) and is divided out by the page's size against the pool's median size
 *   (BM25_B), so a long page that merely mentions a term many times (a changelog) no longer
 *   beats a short page about it;
 * - the title: the weight of the question's terms it holds times the share of its own words the
 *   question names (TITLE_WEIGHT), so "Preview locally" is the page for "preview locally" and
 *   "Preview deployments" only half of it;
 * - the description (DESCRIPTION_WEIGHT) and the path (PATH_WEIGHT), per term found there;
 * - the search's rank r, as SEARCH_WEIGHT × (all terms' weight) / (1 + r);
 * - times OTHER_LANGUAGE_FACTOR for a page in another language than the question.
 *
 * The constants are round numbers, not fitted to a question: the eval files
 * (eval/user-questions.json) measure them.
 */
export const FUSION_K = 10;
/** A term found in a page's path counts this many times over (first pass). */
export const PATH_BOOST = 2;
/** Pages of the first pass looked at again in the second. */
export const RERANK_POOL = 30;
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
export const TITLE_WEIGHT = 3;
export const DESCRIPTION_WEIGHT = 1;
export const PATH_WEIGHT = 0.5;
export const SEARCH_WEIGHT = 1;
/**
 * A page whose description has none of the question language's function words is in another
 * language (a translation of the page the question is about): its score counts this much. Only
 * when the question has some (English, as the key terms' stopwords are); "Preview locally" says
 * nothing of its language.
 */
export const OTHER_LANGUAGE_FACTOR = 0.5;
export const FUNCTION_WORDS: readonly string[] = (
  "a an the and or but not of to in on at by for with from into about as is are was were be been it its " +
  "this that these those there here what which who when where why how can does did do i my you your we our they their"
).split(" ");

/** The question's function words (lowercased): the evidence of the language it is asked in. */
export function functionWordsOf(question: string): string[] {
  const known = new Set(FUNCTION_WORDS);
  return [...new Set(question.toLowerCase().match(/[a-z]+/g) ?? [])].filter((word) => known.has(word));
}
/** Words of a title that say nothing of its subject (they do not count as its words). */
export const TITLE_FILLER: readonly string[] = [
  "the",
  "and",
  "for",
  "with",
  "from",
  "your",
  "you",
  "how",
  "what",
  "into",
  "use",
  "using",
];
/** Ranked pages printed. */
export const RANKED_SHOWN = 8;
/** Decimals printed for a term's weight and a page's score. */
export const WEIGHT_DIGITS = 3;
export const SCORE_DIGITS = 3;

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
  /**
   * One per term: `path:count` for every page with lines holding a word that starts with it
   * (case-insensitive), so "port" counts "port" and "ports" but not "support" or "import". (Not
   * `\bport`: ChromaFs's grep index narrows `(^|[^[:alnum:]])port` by its literal, not `\b`.)
   */
  counts: { term: string; command: string }[];
  /** Before the pages' quoted paths: each page's size in bytes (`wc -c`). */
  sizes: string;
  /** Before the pages' quoted paths: each page's first title and description lines. */
  fields: string;
}

export function rankCommands(query: string, terms: readonly string[]): RankCommands {
  return {
    total: "find / -type f | wc -l",
    search: `search ${shellQuote(query)}`,
    counts: terms.map((term) => ({
      term,
      command: `grep -rciE -- ${shellQuote(`(^|[^[:alnum:]])${regexQuote(term)}`)} / | grep -v ':0$'`,
    })),
    sizes: "wc -c",
    fields: "grep -H -m2 -E '^(title|description):'",
  };
}

/** A term as an extended regular expression matching itself (memory may add terms with dots). */
export function regexQuote(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
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
