import type { EvalReport } from "../eval/run-eval.js";

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/** The evaluation's closing lines: the two accuracies, and what the figures mean. */
export function formatEvalReport(report: EvalReport, scripted: boolean): string {
  const lines = [
    "",
    `Model: ${report.model}${scripted ? " (scripted: this proves the harness, not a model)" : ""}`,
    `Questions: ${report.questions}`,
    `Answer accuracy:   ${percent(report.answerAccuracy)}  (answers containing the page's fact)`,
    `Citation accuracy: ${percent(report.citationAccuracy)}  (answers citing the page that holds it)`,
    `Top-1 citation:    ${report.citationTop1} / ${report.questions}  (answers citing that page first)`,
    `Median time per question: ${report.medianSeconds.toFixed(2)} s`,
    "",
  ];
  return lines.join("\n");
}
