import { type ProgressBarOptions, progressBar } from "@atrium/kit/cli";
import type { IngestPhase, IngestProgress, IngestSummary } from "./ingest-docs.js";
import { describeGroups } from "./stored-groups.js";

const LABELS: Record<IngestPhase, string> = {
  scan: "reading pages",
  write: "writing chunks",
  cleanup: "removing stale chunks",
};

/**
 * An ingest's progress as a bar on a terminal (`████░░░░  42% writing chunks 120/286`), for
 * `ingestDocs`'s `onProgress`; quiet off a terminal or with `quiet`. `done()` clears it before
 * the summary.
 */
export function ingestProgressBar(options: ProgressBarOptions = {}): {
  onProgress: (progress: IngestProgress) => void;
  print: (line: string) => void;
  done: () => void;
} {
  const bar = progressBar(options);
  return {
    onProgress: ({ phase, done, total }) => bar.update(done, total, `${LABELS[phase]} ${done}/${total}`),
    print: (line) => bar.print(line),
    done: () => bar.clear(),
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
