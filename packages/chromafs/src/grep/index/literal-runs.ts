import { foldCase, WORD_RUN } from "./word-runs.js";

/** How a word of the literal must sit in a word of the text. */
export type RunPlacement = "inside" | "suffix" | "prefix" | "whole";

export interface LiteralRun {
  /** The run, case-folded. */
  word: string;
  placement: RunPlacement;
}

/**
 * The word runs of a grep literal, each with where it must sit in a word of a matching text: a
 * run bounded by non-word characters on both sides in the literal is a whole word there; one
 * at the literal's start may be the end of a longer word (suffix), one at its end the start
 * (prefix), a literal that is one run may sit anywhere inside a word.
 */
export function literalRuns(literal: string): LiteralRun[] {
  const runs: LiteralRun[] = [];
  for (const match of literal.matchAll(WORD_RUN)) {
    const start = match.index as number;
    const openLeft = start === 0;
    const openRight = start + match[0].length === literal.length;
    const placement: RunPlacement =
      openLeft && openRight ? "inside" : openLeft ? "suffix" : openRight ? "prefix" : "whole";
    runs.push({ word: foldCase(match[0]), placement });
  }
  return runs;
}
