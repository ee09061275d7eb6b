import { median } from "@atrium/bench";
import { countTokens } from "gpt-tokenizer";
import type { LocomoConversation, LocomoQuestion } from "./locomo-format.js";

/** One search result as the evaluation sees it; `wing` tells conversations apart in a shared palace. */
export interface LocomoHit {
  wing: string;
  turnId: string;
  /** The text the search returned for it (what a caller would put in a prompt). */
  content: string;
}

/** The scores of one question's ranked hits. */
export interface LocomoQuestionScore {
  /** Fraction of the question's evidence turns among the first 5 / 10 hits. */
  turnRecallAt5: number;
  turnRecallAt10: number;
  /** 1 when an evidence session is among the first 5 distinct sessions of the hits, else 0. */
  sessionRecallAnyAt5: number;
  /** gpt-tokenizer tokens of the first 10 hits' content together. */
  tokensAt10: number;
}

export interface LocomoMetrics {
  turn_recall_at_5: number;
  turn_recall_at_10: number;
  session_recall_any_at_5: number;
  /** Median over questions. */
  tokens_at_10: number;
  /** How many questions were scored. */
  questions: number;
}

/** Whether a question is scored at all: it needs an evidence id that names a turn. */
export function isScoredQuestion(question: LocomoQuestion): boolean {
  return question.evidenceTurns.length > 0;
}

/** Scores the ranked `hits` for `question` of `conversation` (hits from other wings never match). */
export function scoreLocomo(
  conversation: LocomoConversation,
  question: LocomoQuestion,
  hits: readonly LocomoHit[],
): LocomoQuestionScore {
  if (!isScoredQuestion(question)) {
    throw new Error(
      `scoreLocomo: "${question.question}" has no evidence id naming a turn of ${conversation.sampleId}; skip it with isScoredQuestion`,
    );
  }
  const evidence = new Set(question.evidenceTurns);
  const ownTurns = (k: number) =>
    new Set(hits.slice(0, k).flatMap((hit) => (hit.wing === conversation.sampleId ? [hit.turnId] : [])));
  const recall = (k: number) => {
    const found = ownTurns(k);
    return question.evidenceTurns.filter((id) => found.has(id)).length / evidence.size;
  };

  const sessionOf = sessionIndex(conversation);
  const evidenceSessions = new Set(question.evidenceTurns.map((id) => `${sessionOf.get(id)}`));
  // Another wing's sessions are unknown here, so each of its hits counts as a session of its own.
  const sessionKey = (hit: LocomoHit) =>
    hit.wing === conversation.sampleId ? `${sessionOf.get(hit.turnId)}` : `${hit.wing}\0${hit.turnId}`;
  const firstSessions = [...new Set(hits.map(sessionKey))].slice(0, 5);
  const sessionHit = firstSessions.some((key) => evidenceSessions.has(key));

  return {
    turnRecallAt5: recall(5),
    turnRecallAt10: recall(10),
    sessionRecallAnyAt5: sessionHit ? 1 : 0,
    tokensAt10: hits.slice(0, 10).reduce((sum, hit) => sum + countTokens(hit.content), 0),
  };
}

/** Means of the recalls and the median of the token counts. */
export function summarizeLocomo(scores: readonly LocomoQuestionScore[]): LocomoMetrics {
  if (scores.length === 0) {
    throw new Error(
      "summarizeLocomo: no scored questions; the file needs questions whose evidence names a turn",
    );
  }
  const mean = (pick: (score: LocomoQuestionScore) => number) =>
    scores.reduce((sum, score) => sum + pick(score), 0) / scores.length;
  return {
    turn_recall_at_5: mean((score) => score.turnRecallAt5),
    turn_recall_at_10: mean((score) => score.turnRecallAt10),
    session_recall_any_at_5: mean((score) => score.sessionRecallAnyAt5),
    tokens_at_10: median(scores.map((score) => score.tokensAt10)),
    questions: scores.length,
  };
}

const sessionIndexes = new WeakMap<LocomoConversation, Map<string, number>>();

function sessionIndex(conversation: LocomoConversation): Map<string, number> {
  let index = sessionIndexes.get(conversation);
  if (!index) {
    index = new Map();
    for (const session of conversation.sessions) {
      for (const turn of session.turns) index.set(turn.turnId, session.number);
    }
    sessionIndexes.set(conversation, index);
  }
  return index;
}
