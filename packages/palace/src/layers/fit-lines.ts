import { countTokens, decode, encode } from "gpt-tokenizer";
import { WAKE_UP_MIN_CUT_TOKENS } from "./layer-tuning.js";

/** One line offered to the wake-up, in priority order. */
export interface BudgetLine {
  text: string;
  /** The most tokens this line may take (it is cut to fit); default: whatever is left. */
  maxTokens?: number;
  /** A cut keeping fewer tokens than this leaves the line out (default `WAKE_UP_MIN_CUT_TOKENS`). */
  minTokens?: number;
}

/** Marks a line that was cut. */
const CUT_MARK = "…";

/**
 * More characters than any one token spans. A line is shortened to `cap × this` characters
 * before it is tokenized: what lies beyond could never fit, and BPE over a long run with no
 * spaces costs time that grows faster than its length (100,000 characters took seconds).
 */
const MAX_CHARS_PER_TOKEN = 32;

/**
 * Joins lines, in order, into text of at most `budget` tokens as gpt-tokenizer counts the whole
 * text. A line longer than its `maxTokens` or than what is left is cut at a token boundary
 * (at a word boundary where one is near) and marked with "…"; a line that cannot keep its
 * `minTokens` is skipped, and later, shorter lines may still fit. So the result is
 * always whole lines, some cut, and never over the budget.
 */
export function fitLines(lines: readonly BudgetLine[], budget: number): string {
  let text = "";
  let used = 0;
  for (const line of lines) {
    const single = line.text.replace(/\s+/g, " ").trim();
    if (single === "") continue;
    const separator = text === "" ? "" : "\n";
    // Joining may merge tokens across the newline, so every acceptance is checked on the whole text.
    const left = budget - used - (separator ? 1 : 0);
    if (left < 1) break;
    const cap = Math.min(left, line.maxTokens ?? left);
    const min = line.minTokens ?? WAKE_UP_MIN_CUT_TOKENS;
    const bound = cap * MAX_CHARS_PER_TOKEN;
    const head = single.length > bound ? single.slice(0, bound) : single;
    let candidate = head === single && countTokens(single) <= cap ? single : cutToTokens(head, cap, min);
    while (candidate !== "") {
      const joined = `${text}${separator}${candidate}`;
      const total = countTokens(joined);
      if (total <= budget) {
        text = joined;
        used = total;
        break;
      }
      candidate = cutToTokens(head, countTokens(candidate) - (total - budget), min);
    }
  }
  return text;
}

/**
 * The longest prefix of `line` ending in "…" that counts at most `max` tokens, cut back to the
 * last space when that keeps most of it; "" when fewer than `min` tokens would remain.
 */
export function cutToTokens(line: string, max: number, min = WAKE_UP_MIN_CUT_TOKENS): string {
  const tokens = encode(
    line.length > max * MAX_CHARS_PER_TOKEN ? line.slice(0, max * MAX_CHARS_PER_TOKEN) : line,
  );
  for (let keep = Math.min(tokens.length, max) - 1; keep >= min; keep--) {
    // A cut inside a multi-byte character decodes to U+FFFD: drop it.
    let prefix = decode(tokens.slice(0, keep)).replace(/\uFFFD+$/, "");
    const space = prefix.lastIndexOf(" ");
    if (space > prefix.length / 2 && !/\s/.test(line[prefix.length] ?? " ")) prefix = prefix.slice(0, space);
    const cut = `${prefix.trimEnd()}${CUT_MARK}`;
    if (countTokens(cut) <= max && encode(prefix.trimEnd()).length >= min) return cut;
  }
  return "";
}
