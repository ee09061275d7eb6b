import type { CodeLanguage } from "@atrium/spec";
import type { MemoryIntent } from "../memory-intent.js";
import type { MemoryShown } from "../scripted-memory.js";

/**
 * What the scripted docs model writes in one language: the code of each kind of step it takes.
 * Everything else it does (choosing terms, reading observations, ranking sentences, the memory
 * behaviour) is the same for every language and lives outside these writers.
 */
export interface StepWriter {
  language: CodeLanguage;
  /** The code block's label (the dialect's shown fence: `js`, `py`). */
  fence: string;
  /**
   * Step 1 of a docs question: greps each term, searches, ranks the pages (see `ranking.ts`) and
   * prints `weights: term=w …` then `rank <score> <path> <counts as JSON>` lines.
   */
  rank(query: string, terms: readonly string[]): string;
  /** Step 2: prints each page after a `==> path <==` line. */
  read(paths: readonly string[]): string;
  /** The last step: `final_answer` with `{ answer, sources }`. */
  finalAnswer(answer: string, sources: readonly string[]): string;
  /**
   * The memory step: remembers each statement (and its fact), then recalls and queries facts when
   * the question refers to the user; prints `remembered {…}`, `fact "…"`, `recalled "…"` and
   * `known "…"` lines (JSON, read back by `parseMemoryObservation`).
   */
  memory(intent: MemoryIntent, shown: MemoryShown, query: string): string;
}
