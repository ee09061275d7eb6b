import type { CliOutput } from "./cli-types.js";

export interface ProgressBarOptions {
  /** Where to draw: stderr by default, so stdout stays for results. */
  stream?: CliOutput;
  /** Draw nothing: `--quiet`, or `--json` (whose reader wants the document alone). */
  quiet?: boolean;
  /** Least time between two redraws; the first and the last state are always drawn. */
  redrawMs?: number;
  now?: () => number;
}

export interface ProgressBar {
  /** Whether it draws: on a terminal, and not quiet. */
  readonly drawing: boolean;
  /** `done` of `total`, and a label after the percentage (what is at hand, the counts). */
  update(done: number, total: number, label?: string): void;
  /** A line of its own (an error, a notice), above the bar; written whether the bar draws or not. */
  print(line: string): void;
  /** Takes the bar off the terminal (before a summary, at the end). */
  clear(): void;
}

const WIDTH = 28;
const REDRAW_MS = 100;
const CLEAR_LINE = "\r\u001b[2K";

/**
 * One line redrawn in place on a terminal: `████████░░░░  42% label`, cut to the terminal's
 * width. Off a terminal (a pipe, a file, CI's log) a plain line each time another tenth of the
 * way is done (` 40% label`), so a long run's log shows it moving and stays short. Quiet draws
 * nothing but the lines given to `print`.
 */
export function progressBar(options: ProgressBarOptions = {}): ProgressBar {
  const stream = options.stream ?? process.stderr;
  const drawing = stream.isTTY === true && options.quiet !== true;
  const logging = stream.isTTY !== true && options.quiet !== true;
  let loggedTenth = 0;
  let logged = { done: 0, total: Number.NaN };
  const redrawMs = options.redrawMs ?? REDRAW_MS;
  const now = options.now ?? Date.now;
  let state: { done: number; total: number; label: string } | undefined;
  let drawnAt = Number.NEGATIVE_INFINITY;
  let shown = false;

  const draw = () => {
    if (!state) return;
    const { done, total, label } = state;
    const fraction = total <= 0 ? 1 : Math.min(1, Math.max(0, done / total));
    const filled = Math.round(fraction * WIDTH);
    const percent = String(Math.floor(fraction * 100)).padStart(3);
    const line = `${"█".repeat(filled)}${"░".repeat(WIDTH - filled)} ${percent}%${label ? ` ${label}` : ""}`;
    stream.write(`${CLEAR_LINE}${line.slice(0, Math.max(20, (stream.columns ?? 80) - 1))}`);
    drawnAt = now();
    shown = true;
  };
  const clear = () => {
    if (shown) stream.write(CLEAR_LINE);
    shown = false;
  };

  return {
    drawing,
    update(done, total, label = "") {
      state = { done, total, label };
      if (logging) {
        // Another total or a step back is another stretch of work (an ingest's next phase).
        if (total !== logged.total || done < logged.done) loggedTenth = 0;
        logged = { done, total };
        const fraction = total <= 0 ? 1 : Math.min(1, Math.max(0, done / total));
        const tenth = Math.floor(fraction * 10);
        if (tenth > Math.max(loggedTenth, 0)) {
          loggedTenth = tenth;
          stream.write(`${String(Math.floor(fraction * 100)).padStart(3)}%${label ? ` ${label}` : ""}\n`);
        }
        return;
      }
      if (!drawing) return;
      const edge = !shown || done === 0 || done >= total;
      if (edge || now() - drawnAt >= redrawMs) draw();
    },
    print(line) {
      const redraw = shown;
      clear();
      stream.write(`${line}\n`);
      if (redraw) draw();
    },
    clear,
  };
}
