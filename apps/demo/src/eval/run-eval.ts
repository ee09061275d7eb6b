import { median } from "@atrium/bench";
import type { AnswerEvent, AssistantEvent } from "../assistant/assistant-events.js";
import type { Assistant } from "../assistant/create-assistant.js";
import type { DocsUser } from "../docs/docs-library.js";
import type { EvalQuestion } from "./eval-questions.js";
import { type Grade, grade } from "./grade.js";

export interface EvalResult extends Grade {
  id: string;
  question: string;
  page: string;
  fact: string;
  answer: string;
  cited: string[];
  state: AnswerEvent["state"];
  seconds: number;
}

export interface EvalReport {
  model: string;
  questions: number;
  /** Share of answers containing their fact, 0–1. */
  answerAccuracy: number;
  /** Share of answers citing the page that holds the fact, 0–1. */
  citationAccuracy: number;
  /** Answers whose first cited page is the one that holds the fact (a count: tests pin it). */
  citationTop1: number;
  medianSeconds: number;
  results: EvalResult[];
}

/** Asks every question in turn (one at a time, as a user would) and grades each answer. */
export async function runEval(
  assistant: Assistant,
  questions: readonly EvalQuestion[],
  options: {
    user?: DocsUser;
    signal?: AbortSignal;
    onResult?: (result: EvalResult, index: number) => void;
    onEvent?: (event: AssistantEvent) => void;
  } = {},
): Promise<EvalReport> {
  const results: EvalResult[] = [];
  for (const [index, question] of questions.entries()) {
    let final: AnswerEvent | undefined;
    for await (const event of assistant.ask(question.question, {
      user: options.user,
      signal: options.signal,
    })) {
      options.onEvent?.(event);
      if (event.type === "answer") final = event;
    }
    const answer = final?.answer ?? "";
    const citations = final?.citations ?? [];
    const result: EvalResult = {
      id: question.id,
      question: question.question,
      page: question.page,
      fact: question.fact,
      answer,
      cited: citations.map((c) => c.path),
      state: final?.state ?? "error",
      seconds: (final?.timing.totalMs ?? 0) / 1000,
      ...grade(question, answer, citations),
    };
    results.push(result);
    options.onResult?.(result, index);
  }
  const share = (pick: (r: EvalResult) => boolean) => results.filter(pick).length / results.length;
  return {
    model: assistant.model.id,
    questions: results.length,
    answerAccuracy: share((r) => r.answerCorrect),
    citationAccuracy: share((r) => r.citationCorrect),
    citationTop1: results.filter((r) => r.citationTop1).length,
    medianSeconds: median(results.map((r) => r.seconds)),
    results,
  };
}
