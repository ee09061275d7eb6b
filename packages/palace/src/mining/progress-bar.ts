import type { MineEvent, MineResult } from "./mine-types.js";
import { formatMineError } from "./mine-types.js";

/**
 * The mining run's progress for a terminal: on a TTY one line redrawn in place (a bar, files
 * done, drawers added, the file at hand), at most every `redrawMs`; anywhere else (a log, CI)
 * plain lines at every tenth of the way, so a log stays short. Errors are printed as they come,
 * the summary at the end. Use it as `onProgress: progressBar()`.
 */

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressBarOptions {
  /** Where to draw; stderr by default, so stdout stays for results (`--json`). */
  stream?: ProgressStream;
  /** Least time between two redraws on a TTY. */
  redrawMs?: number;
  now?: () => number;
}

const BAR_WIDTH = 24;
const DEFAULT_REDRAW_MS = 100;
const PLAIN_STEPS = 10;

export function progressBar(options: ProgressBarOptions = {}): (event: MineEvent) => void {
  const stream = options.stream ?? process.stderr;
  const tty = stream.isTTY === true;
  const redrawMs = options.redrawMs ?? DEFAULT_REDRAW_MS;
  const now = options.now ?? Date.now;
  let files = 0;
  let done = 0;
  let added = 0;
  let skipped = 0;
  let errors = 0;
  let current = "";
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastStep = -1;
  let drawn = false;

  const line = (): string => {
    const fraction = files === 0 ? 1 : done / files;
    const filled = Math.round(fraction * BAR_WIDTH);
    const counts = `${done}/${files} files  ${added} drawers added  ${skipped} unchanged${errors ? `  ${errors} errors` : ""}`;
    return `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${Math.floor(fraction * 100)}%  ${counts}`;
  };
  const draw = (force: boolean) => {
    if (!tty) return;
    if (!force && now() - lastDraw < redrawMs) return;
    lastDraw = now();
    const width = Math.max(20, (stream.columns ?? 80) - 1);
    let text = line();
    if (current && text.length + 3 < width) text += `  ${current}`.slice(0, width - text.length);
    stream.write(`\r${text.slice(0, width)}\x1b[K`);
    drawn = true;
  };
  const clear = () => {
    if (tty && drawn) stream.write("\r\x1b[K");
    drawn = false;
  };

  return (event: MineEvent) => {
    switch (event.type) {
      case "start":
        files = event.files;
        if (!tty) stream.write(`mining ${event.files} files from ${event.path} (${event.mode})\n`);
        draw(true);
        break;
      case "source":
        if (event.status === "unchanged") skipped++;
        added += event.added;
        current = event.file;
        draw(false);
        break;
      case "error":
        errors++;
        clear();
        stream.write(`error: ${formatMineError(event.error)}\n`);
        draw(true);
        break;
      case "file": {
        done = event.done;
        files = event.files;
        current = event.file;
        if (tty) draw(false);
        else {
          const step = files === 0 ? PLAIN_STEPS : Math.floor((done / files) * PLAIN_STEPS);
          if (step > lastStep && step > 0) {
            lastStep = step;
            stream.write(`${line()}\n`);
          }
        }
        break;
      }
      case "done":
        clear();
        stream.write(`${summary(event.result)}\n`);
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
