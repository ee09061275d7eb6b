import { formatBenchTable } from "@atrium/bench";
import { defineCommand, jsonText, progressBar, UsageError } from "@atrium/kit/cli";
import { type PalaceLocomoProgress, runPalaceLocomo } from "../../bench/locomo/locomo-palace.js";

export const benchCommand = defineCommand({
  name: "bench",
  summary: "the LoCoMo retrieval benchmark",
  usage: "locomo <file> [--scoped] [--json] [--work-dir DIR]",
  description: `The LoCoMo retrieval benchmark on any file in LoCoMo's format: each conversation is filed into
its own palace (one drawer per turn), every question with evidence turn ids is searched, and
turn recall at 5 and 10, session recall at 5 and the median tokens of the top 10 are reported for
the palace's hybrid search beside its BM25 and vector legs and plain BM25 and vector baselines.
No LLM is involved. Palaces are built in a temporary directory (removed after) and do not touch
--palace. Progress goes to stderr.`,
  arguments: [
    ["locomo", "the benchmark"],
    ["<file>", "questions and conversations in LoCoMo's format"],
  ],
  options: {
    scoped: {
      type: "boolean",
      help: "also file every conversation into one palace (a wing each) and report\nsearch inside the question's wing beside search across the whole palace",
    },
    json: {
      type: "boolean",
      help: "print the rows as JSON ({metric, value, unit, baseline?, baselineValue?, ratio?})",
    },
    "work-dir": { type: "string", value: "DIR", help: "build the palaces there and keep them" },
  },
  positionals: { max: 2 },
  async run({ values, positionals }, io) {
    const [suite, file] = positionals;
    if (suite !== "locomo") {
      throw new UsageError(
        suite === undefined ? "missing benchmark: locomo" : `unknown benchmark '${suite}': use locomo`,
      );
    }
    if (file === undefined) throw new UsageError("missing the LoCoMo file");
    const workDir = values["work-dir"];
    const rows = await runPalaceLocomo(file, {
      scoped: values.scoped === true,
      onProgress: progressLines(io.stderr),
      ...(workDir === undefined ? {} : { workDir }),
    });
    io.stdout.write(values.json ? jsonText(rows) : `${formatBenchTable(rows)}\n`);
    return 0;
  },
});

/** A line per palace filed, and the searches as a bar on a terminal. */
function progressLines(stream: {
  write(text: string): unknown;
  isTTY?: boolean;
}): (progress: PalaceLocomoProgress) => void {
  const bar = progressBar({ stream });
  return (progress) => {
    if (progress.phase === "mine") {
      bar.print(
        `filed ${progress.drawers} drawers into palace ${progress.palace} in ${Math.round(progress.ms)} ms`,
      );
      return;
    }
    bar.update(
      progress.done,
      progress.total,
      `searching (${progress.mode}): ${progress.done}/${progress.total} questions`,
    );
    if (progress.done === progress.total) bar.clear();
  };
}
