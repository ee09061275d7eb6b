import { type CliOutput, type ProgressBarOptions, progressBar as terminalBar } from "@atrium/kit/cli";
import type { MineEvent, MineResult } from "./mine-types.js";
import { formatMineError } from "./mine-types.js";

export type { ProgressBarOptions };
/** Where the bar draws: stderr, or a test's capture. */
export type ProgressStream = CliOutput;

/**
 * A mining run's progress for `onProgress: progressBar()`: what is mined, then on a terminal a bar
 * redrawn in place (files done, drawers added, the file at hand) and off one a line each tenth of
 * the way; errors as they come and the summary at the end. Quiet (`--json`) leaves out all but the
 * errors.
 */
export function progressBar(options: ProgressBarOptions = {}): (event: MineEvent) => void {
  const bar = terminalBar(options);
  let files = 0;
  let done = 0;
  let added = 0;
  let skipped = 0;
  let errors = 0;
  const update = (file: string) =>
    bar.update(
      done,
      files,
      `${done}/${files} files  ${added} drawers added  ${skipped} unchanged${errors ? `  ${errors} errors` : ""}${file ? `  ${file}` : ""}`,
    );

  return (event: MineEvent) => {
    switch (event.type) {
      case "start":
        files = event.files;
        if (!options.quiet) bar.print(`mining ${event.files} files from ${event.path} (${event.mode})`);
        update("");
        break;
      case "source":
        if (event.status === "unchanged") skipped++;
        added += event.added;
        update(event.file);
        break;
      case "error":
        errors++;
        bar.print(`error: ${formatMineError(event.error)}`);
        break;
      case "file":
        done = event.done;
        files = event.files;
        update(event.file);
        break;
      case "done":
        bar.clear();
        if (!options.quiet) bar.print(summary(event.result));
        break;
      case "excluded":
        break;
    }
  };
}

/** One line a person reads at the end of a run. */
export function summary(result: MineResult): string {
  const parts = [
    `${result.sources} sources`,
    `${result.added} drawers added`,
    `${result.kept} kept`,
    `${result.removed} removed`,
    `${result.skipped} unchanged`,
    `${result.excluded} files left out`,
  ];
  if (result.sourcesRemoved > 0) parts.push(`${result.sourcesRemoved} sources gone`);
  if (result.errors.length > 0) parts.push(`${result.errors.length} errors`);
  return `mined: ${parts.join(", ")}`;
}
