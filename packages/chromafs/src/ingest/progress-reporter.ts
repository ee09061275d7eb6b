import type { IngestPhase, IngestProgress, IngestSummary } from "./ingest-docs.js";
import { describeGroups } from "./stored-groups.js";

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const LABELS: Record<IngestPhase, string> = {
  scan: "reading pages",
  write: "writing chunks",
  cleanup: "removing stale chunks",
};
const BAR_WIDTH = 28;

/**
 * Renders ingest progress: a bar redrawn in place on a terminal, and plain lines (each phase's
 * start and every quarter) when stderr is a file or pipe, so CI logs stay readable.
 */
export function progressReporter(stream: ProgressStream): {
  onProgress: (event: IngestProgress) => void;
  finish: () => void;
} {
  let lastPhase: IngestPhase | undefined;
  let lastQuarter = -1;
  let drawn = false;
  return {
    onProgress(event) {
      const fraction = event.total === 0 ? 1 : event.done / event.total;
      if (stream.isTTY) {
        const filled = Math.round(fraction * BAR_WIDTH);
        const bar = `${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}`;
        stream.write(
          `\r\u001b[2K${bar} ${String(Math.floor(fraction * 100)).padStart(3)}% ${LABELS[event.phase]} ${event.done}/${event.total}`,
        );
        drawn = true;
        return;
      }
      const quarter = Math.floor(fraction * 4);
      if (event.phase !== lastPhase || quarter > lastQuarter) {
        stream.write(`${LABELS[event.phase]}: ${event.done}/${event.total}\n`);
        lastPhase = event.phase;
        lastQuarter = quarter;
      }
    },
    finish() {
      if (drawn) stream.write("\r\u001b[2K");
    },
  };
}

export function formatSummary(summary: IngestSummary): string {
  const { pages, chunks } = summary;
  return (
    `Ingested ${pages.total} pages into ${summary.collection} in ${summary.seconds.toFixed(1)} s: ` +
    `${pages.added} added, ${pages.changed} changed, ${pages.removed} removed, ${pages.unchanged} unchanged; ` +
    `${chunks.total} chunks (${chunks.written} written, ${chunks.deleted} deleted), ${formatBytes(summary.bytes)}\n` +
    `${describeGroups(summary.groups, pages.total)}\n`
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
