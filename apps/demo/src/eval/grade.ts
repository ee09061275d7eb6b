import type { Citation } from "../assistant/assistant-events.js";
import type { EvalQuestion } from "./eval-questions.js";

/**
 * Case, Markdown emphasis and code marks, quotes and runs of spaces don't decide whether an
 * answer states a fact: "`mint dev`" states "mint dev".
 */
export function looseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_"“”‘’']/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

export interface Grade {
  /** The answer contains the question's fact. */
  answerCorrect: boolean;
  /** The answer cites the page that holds it. */
  citationCorrect: boolean;
  /**
   * The first page the answer cites is the question's page: what a reader follows, and what a
   * ranking that puts the right page second (citing a page beside the question first) gets wrong.
   */
  citationTop1: boolean;
}

export function grade(question: EvalQuestion, answer: string, citations: readonly Citation[]): Grade {
  return {
    answerCorrect: looseText(answer).includes(looseText(question.fact)),
    citationCorrect: citations.some((citation) => citation.path === question.page),
    citationTop1: citations[0]?.path === question.page,
  };
}
