import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ValidationError } from "@atrium/spec";
import { resolveDemoLimits } from "../limits.js";

/** One evaluation question: the page that answers it, and a fact a correct answer contains. */
export interface EvalQuestion {
  id: string;
  question: string;
  /** The page's path in the docs shell, e.g. "/customize/custom-domain.mdx". */
  page: string;
  /** A short string from that page that a correct answer must contain (compared loosely). */
  fact: string;
}

export const DEFAULT_EVAL_FILE = fileURLToPath(new URL("../../eval/docs-questions.json", import.meta.url));

/**
 * Questions phrased as users ask them, written before the scripted model's ranking was last
 * changed: its top-1 citation on them is the figure `scripted-top1.test.ts` pins.
 */
export const USER_EVAL_FILE = fileURLToPath(new URL("../../eval/user-questions.json", import.meta.url));

/** Reads and checks a questions file (`{ "questions": [...] }`); every problem is named with its place. */
export function loadEvalQuestions(file: string = DEFAULT_EVAL_FILE): EvalQuestion[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ValidationError("eval", [
      { path: [file], message: `cannot read the questions file: ${(error as Error).message}` },
    ]);
  }
  const list = (data as { questions?: unknown })?.questions;
  if (!Array.isArray(list) || list.length === 0) {
    throw new ValidationError("eval", [
      { path: [file, "questions"], message: "expected a non-empty array of questions" },
    ]);
  }
  const max = resolveDemoLimits().maxEvalQuestions;
  if (list.length > max) {
    throw new ValidationError("eval", [
      { path: [file, "questions"], message: `${list.length} questions, over the limit of ${max}` },
    ]);
  }
  const issues: { path: string[]; message: string }[] = [];
  const ids = new Set<string>();
  list.forEach((entry, index) => {
    for (const field of ["id", "question", "page", "fact"] as const) {
      const value = (entry as Record<string, unknown>)?.[field];
      if (typeof value !== "string" || !value.trim()) {
        issues.push({
          path: [file, "questions", String(index), field],
          message: "expected a non-empty string",
        });
      }
    }
    const { id, page } = entry as Partial<EvalQuestion>;
    if (typeof page === "string" && !/^\/.+\.mdx?$/.test(page)) {
      issues.push({
        path: [file, "questions", String(index), "page"],
        message: `${JSON.stringify(page)} is not a page path such as /guides/x.mdx`,
      });
    }
    if (typeof id === "string") {
      if (ids.has(id))
        issues.push({
          path: [file, "questions", String(index), "id"],
          message: `duplicate id ${JSON.stringify(id)}`,
        });
      ids.add(id);
    }
  });
  if (issues.length > 0) throw new ValidationError("eval", issues);
  return list as EvalQuestion[];
}
