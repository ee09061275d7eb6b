import { countTokens, decode, encode } from "gpt-tokenizer";
import { DRAWER_COLUMNS, type DrawerRow } from "../db/drawer-row.js";
import type { Palace } from "../palace.js";

/** Drawers each signal (pinned, most accessed, most recent) offers the wake-up. */
const CANDIDATES_PER_SIGNAL = 20;

/**
 * The wake-up context: the identity (L0), then drawers chosen by a real signal — pinned first,
 * then the most accessed, then the most recent — one line each, fitted to `budgetTokens` as
 * gpt-tokenizer counts them. It never exceeds the budget: a line that does not fit whole is cut
 * at a token boundary when it is the first, and dropped otherwise.
 *
 * A first, simple version behind one function so the layered wake-up (L0–L3) can replace it.
 */
export async function buildWakeUp(palace: Palace, budgetTokens: number): Promise<string> {
  const { db } = palace.internals();
  const select = (order: string, where = "") =>
    db
      .prepare(`SELECT ${DRAWER_COLUMNS} FROM drawers d ${where} ORDER BY ${order} LIMIT ?`)
      .all(CANDIDATES_PER_SIGNAL) as DrawerRow[];
  const rows = [
    ...select("d.rowid DESC", "WHERE d.pinned = 1"),
    ...select("d.access_count DESC, d.last_accessed DESC", "WHERE d.access_count > 0"),
    ...select("d.timestamp_ms DESC, d.rowid DESC"),
  ];
  const seen = new Set<string>();
  const lines: string[] = [];
  if (palace.identity?.trim()) lines.push(palace.identity.trim());
  for (const row of rows) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    const text = row.content.replace(/\s+/g, " ").trim();
    lines.push(`- ${row.speaker ? `${row.speaker}: ` : ""}${text}`);
  }
  return fitToBudget(lines, budgetTokens);
}

/** Joins lines while the whole stays within `budget` tokens (counted on the joined text). */
export function fitToBudget(lines: readonly string[], budget: number): string {
  let text = "";
  for (const line of lines) {
    const next = text === "" ? line : `${text}\n${line}`;
    if (countTokens(next) <= budget) {
      text = next;
      continue;
    }
    if (text === "") text = cutToTokens(line, budget);
    // Later lines may be shorter and still fit.
  }
  return text;
}

/** The longest prefix of `line` (at a token boundary) that counts at most `budget` tokens. */
function cutToTokens(line: string, budget: number): string {
  const tokens = encode(line);
  for (let keep = Math.min(tokens.length, budget); keep > 0; keep--) {
    const cut = decode(tokens.slice(0, keep)).trimEnd();
    if (cut !== "" && countTokens(cut) <= budget) return cut;
  }
  return "";
}
