import { readFile } from "node:fs/promises";
import { type BenchRow, compared } from "@atrium/bench";
import { type LocomoConversation, loadLocomo } from "./locomo-format.js";
import {
  isScoredQuestion,
  type LocomoHit,
  type LocomoMetrics,
  type LocomoQuestionScore,
  scoreLocomo,
  summarizeLocomo,
} from "./locomo-score.js";

/**
 * How many hits each question asks for: 10 for the recalls, more so the first five distinct
 * sessions can be found even when the top hits crowd into one or two sessions.
 */
export const LOCOMO_SEARCH_K = 30;

export interface LocomoSearchOptions {
  k: number;
  /** Search only this wing (a conversation's sample id); absent = the whole palace. */
  wing?: string;
}

/** A searchable store holding the conversations it was opened with, one wing per sample id. */
export interface LocomoSearcher {
  search(query: string, options: LocomoSearchOptions): Promise<readonly LocomoHit[]>;
  close?(): Promise<void> | void;
}

/** Files the conversations' drafts (`conversation.drafts`) into a fresh store and returns its searcher. */
export type LocomoSearchFactory = (conversations: readonly LocomoConversation[]) => Promise<LocomoSearcher>;

/**
 * - `per-conversation`: each conversation in its own store, searched in its wing;
 * - `scoped`: all conversations in one store, each question searched inside its conversation's wing;
 * - `flat`: all in one store, searched across every wing.
 */
export type LocomoScope = "per-conversation" | "scoped" | "flat";

export interface LocomoEvaluation {
  overall: LocomoMetrics;
  bySample: Record<string, LocomoMetrics>;
}

/** Runs every scored question of `conversations` against stores opened by `open`. */
export async function evaluateLocomo(
  conversations: readonly LocomoConversation[],
  open: LocomoSearchFactory,
  scope: LocomoScope = "per-conversation",
): Promise<LocomoEvaluation> {
  const scores = new Map<string, LocomoQuestionScore[]>();
  const askAll = async (searcher: LocomoSearcher, conversation: LocomoConversation) => {
    const own: LocomoQuestionScore[] = [];
    for (const question of conversation.questions.filter(isScoredQuestion)) {
      const options: LocomoSearchOptions = { k: LOCOMO_SEARCH_K };
      if (scope !== "flat") options.wing = conversation.sampleId;
      own.push(scoreLocomo(conversation, question, await searcher.search(question.question, options)));
    }
    scores.set(conversation.sampleId, own);
  };
  if (scope === "per-conversation") {
    for (const conversation of conversations) {
      const searcher = await open([conversation]);
      try {
        await askAll(searcher, conversation);
      } finally {
        await searcher.close?.();
      }
    }
  } else {
    const searcher = await open(conversations);
    try {
      for (const conversation of conversations) await askAll(searcher, conversation);
    } finally {
      await searcher.close?.();
    }
  }
  const bySample: Record<string, LocomoMetrics> = {};
  for (const [sampleId, own] of scores) if (own.length > 0) bySample[sampleId] = summarizeLocomo(own);
  return { overall: summarizeLocomo([...scores.values()].flat()), bySample };
}

export interface LocomoBenchOptions {
  /**
   * Search modes by name, the first being the one measured and each later one a baseline beside
   * it (e.g. `{ palace, bm25, vector }`). Every mode searches the same drafts.
   */
  search: Record<string, LocomoSearchFactory>;
  /** When given, also measures scoped against flat search in one store holding every conversation. */
  scoped?: LocomoSearchFactory;
}

const METRICS: readonly { key: keyof LocomoMetrics; unit: string }[] = [
  { key: "turn_recall_at_5", unit: "fraction" },
  { key: "turn_recall_at_10", unit: "fraction" },
  { key: "session_recall_any_at_5", unit: "fraction" },
  { key: "tokens_at_10", unit: "tokens" },
];

/**
 * The LoCoMo retrieval benchmark over a file in LoCoMo's format: rows `locomo.<metric>` of the
 * first mode, one per baseline mode (`baseline` names it; ratio = value ÷ baseline), plus the
 * scoped-vs-flat pair when `scoped` is given.
 */
export async function runLocomoBench(file: string, options: LocomoBenchOptions): Promise<BenchRow[]> {
  const conversations = loadLocomo(await readFile(file, "utf8"));
  const modes = Object.entries(options.search);
  if (modes.length === 0)
    throw new Error("runLocomoBench: options.search names no search mode; pass at least one");
  const results: [string, LocomoMetrics][] = [];
  for (const [name, open] of modes) results.push([name, (await evaluateLocomo(conversations, open)).overall]);
  const rows = locomoRows(results);
  if (options.scoped) {
    const scoped = await evaluateLocomo(conversations, options.scoped, "scoped");
    const flat = await evaluateLocomo(conversations, options.scoped, "flat");
    rows.push(
      compared(
        "locomo.scoped_turn_recall_at_10",
        scoped.overall.turn_recall_at_10,
        "fraction",
        "flat",
        flat.overall.turn_recall_at_10,
      ),
      { metric: "locomo.flat_turn_recall_at_10", value: flat.overall.turn_recall_at_10, unit: "fraction" },
    );
  }
  return rows;
}

/** Bench rows from each mode's metrics: the first mode's, beside each later mode as its baseline. */
export function locomoRows(results: readonly (readonly [string, LocomoMetrics])[]): BenchRow[] {
  const [measured, ...baselines] = results;
  if (!measured) return [];
  const rows: BenchRow[] = [];
  for (const { key, unit } of METRICS) {
    const metric = `locomo.${key}`;
    if (baselines.length === 0) rows.push({ metric, value: measured[1][key], unit });
    for (const [name, metrics] of baselines)
      rows.push(compared(metric, measured[1][key], unit, name, metrics[key]));
  }
  rows.push({ metric: "locomo.questions", value: measured[1].questions, unit: "questions" });
  return rows;
}
