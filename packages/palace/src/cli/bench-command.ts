import { formatBenchTable } from "@atrium/spec/bench";
import { type PalaceLocomoProgress, runPalaceLocomo } from "../../bench/locomo/locomo-palace.js";
import {
  type CliCommand,
  type CliIo,
  jsonLine,
  parseCommandArgs,
  printHelp,
  stringOption,
  UsageError,
} from "./cli-command.js";

const USAGE = `Usage: atrium-palace bench locomo <file> [--scoped] [--json] [--work-dir DIR]

The LoCoMo retrieval benchmark on any file in LoCoMo's format: each conversation is filed into
its own palace (one drawer per turn), every question with evidence turn ids is searched, and
turn recall at 5 and 10, session recall at 5 and the median tokens of the top 10 are reported for
the palace's hybrid search beside its BM25 and vector legs and plain BM25 and vector baselines.
No LLM is involved. Palaces are built in a temporary directory (removed after) and do not touch
--palace. Progress goes to stderr.

  --scoped              also file every conversation into one palace (a wing each) and report
                        search inside the question's wing beside search across the whole palace
  --json                print the rows as JSON ({metric, value, unit, baseline?, baselineValue?, ratio?})
  --work-dir DIR        build the palaces there and keep them
  -h, --help            show this help
`;

export const benchCommand: CliCommand = {
  name: "bench",
  synopsis: "bench locomo <file> [--json]",
  summary: "the LoCoMo retrieval benchmark",
  usage: USAGE,
  async run(argv, io) {
    const [suite, ...rest] = argv;
    if (suite === "-h" || suite === "--help") return printHelp(io, USAGE);
    if (suite !== "locomo") {
      throw new UsageError(
        suite === undefined ? "missing benchmark: locomo" : `unknown benchmark '${suite}': use locomo`,
      );
    }
    const args = parseCommandArgs(
      rest,
      { scoped: { type: "boolean" }, json: { type: "boolean" }, "work-dir": { type: "string" } },
      { min: 1, max: 1, names: "the LoCoMo file" },
    );
    if (!args) return printHelp(io, USAGE);
    const workDir = stringOption(args.values, "work-dir");
    const rows = await runPalaceLocomo(args.positionals[0] as string, {
      scoped: args.values.scoped === true,
      onProgress: progressLines(io),
      ...(workDir === undefined ? {} : { workDir }),
    });
    io.stdout.write(args.values.json ? jsonLine(rows) : `${formatBenchTable(rows)}\n`);
    return 0;
  },
};

/** One stderr line per palace filed and per search mode finished (redrawn in place on a terminal). */
function progressLines(io: CliIo): (progress: PalaceLocomoProgress) => void {
  const tty = io.stderr.isTTY === true;
  return (progress) => {
    if (progress.phase === "mine") {
      io.stderr.write(
        `${tty ? "\r\x1b[K" : ""}filed ${progress.drawers} drawers into palace ${progress.palace} in ${Math.round(progress.ms)} ms\n`,
      );
      return;
    }
    const line = `searching (${progress.mode}): ${progress.done}/${progress.total} questions`;
    if (tty) io.stderr.write(`\r${line}\x1b[K${progress.done === progress.total ? "\n" : ""}`);
    else if (progress.done === progress.total) io.stderr.write(`${line}\n`);
  };
}
