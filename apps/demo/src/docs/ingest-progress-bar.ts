import type { IngestPhase, IngestProgress } from "@atrium/chromafs";

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

const LABELS: Record<IngestPhase, string> = {
  scan: "reading pages",
  write: "embedding and writing chunks",
  cleanup: "removing stale chunks",
};
const WIDTH = 30;

/**
 * The first run's ingest as a bar redrawn in place on a terminal; piped into a file or a CI log
 * it becomes one line per phase and per quarter, so the log stays short.
 */
export function ingestProgressBar(output: ProgressOutput): {
  onProgress: (progress: IngestProgress) => void;
  done: () => void;
} {
  let drawn = false;
  let lastLine = "";
  return {
    onProgress({ phase, done, total }) {
      const fraction = total === 0 ? 1 : Math.min(1, done / total);
      if (output.isTTY) {
        const filled = Math.round(fraction * WIDTH);
        const bar = `${"█".repeat(filled)}${"░".repeat(WIDTH - filled)}`;
        output.write(
          `\r\u001b[2K  ${bar} ${String(Math.floor(fraction * 100)).padStart(3)}% ${LABELS[phase]} ${done}/${total}`,
        );
        drawn = true;
        return;
      }
      const line = `  ${LABELS[phase]}: ${Math.floor(fraction * 4) * 25}%`;
      if (line !== lastLine) output.write(`${line}\n`);
      lastLine = line;
    },
    done() {
      if (drawn) output.write("\r\u001b[2K");
      drawn = false;
    },
  };
}
