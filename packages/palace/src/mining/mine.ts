import { stat } from "node:fs/promises";
import { errorMessage, isFatalError, rethrowIfFatal } from "@atrium/spec";
import type { DrawerDraft } from "../drawers/drawer.js";
import { nameProblem } from "../drawers/text-checks.js";
import { invalidInput, isPalaceError, PalaceError } from "../errors.js";
import { CONVERSATION_FORMATS } from "../formats/conversation.js";
import { resolveMineLimits } from "../limits.js";
import { throwIfAborted } from "./abort.js";
import { conversationSources } from "./conversation-sources.js";
import type { DrawerSink, ReplaceSourceResult } from "./drawer-sink.js";
import type { MineEvent, MineOptions, MineResult } from "./mine-types.js";
import { projectSources } from "./project-sources.js";
import { notRegularFile } from "./read-regular-file.js";
import { parseRoomRules, RoomClassifier } from "./rooms.js";
import {
  partKey,
  partOwner,
  SOURCE_KEY_KINDS,
  type SourceItem,
  type SourceJob,
  type SourceSweep,
} from "./source-job.js";

/**
 * Mines a folder or export file into a palace (any `DrawerSink`). Incremental: a source whose
 * hash is unchanged since the last run is skipped; a changed one is replaced whole in one atomic
 * `replaceSource`, so a run killed at any point leaves every source either as before or as new,
 * and running it again finishes the job. A file that cannot be read becomes an entry in `errors`
 * naming it (and the line, column or JSON path) while the other files are still mined.
 */
export async function mine(sink: DrawerSink, path: string, options: MineOptions): Promise<MineResult> {
  const events = mineEvents(sink, path, options);
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
    options.onProgress?.(next.value);
  }
}

/** The same run as a stream of events (what `mine` reports through `onProgress`), ending with its result. */
export async function* mineEvents(
  sink: DrawerSink,
  path: string,
  options: MineOptions,
): AsyncGenerator<MineEvent, MineResult> {
  const checked = checkOptions(options);
  const limits = resolveMineLimits(options.limits);
  const classifier = new RoomClassifier(checked.rooms);
  // A palace takes at most `maxBatchDrafts` drafts per call; a longer source is filed in parts.
  const batchDrafts = sink.limits?.maxBatchDrafts ?? Number.POSITIVE_INFINITY;
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) {
    throw new PalaceError(
      "palace/not-found",
      `${path} does not exist; give the folder or export file to mine`,
    );
  }
  // A device or FIFO reports size 0 to `stat`: read, it never ends (or never starts).
  if (!info.isDirectory() && !info.isFile()) throw notRegularFile(path, info);
  if (options.mode === "project" && !info.isDirectory()) {
    throw invalidInput(
      "path",
      `${path} is a file; --mode project mines a folder (use --mode convos for an export file)`,
    );
  }
  const sources: AsyncGenerator<SourceItem> =
    options.mode === "project"
      ? projectSources(path, { wing: options.wing, classifier, limits, signal: options.signal })
      : conversationSources(path, {
          wing: options.wing,
          chunking: options.chunking ?? "exchange",
          ...(options.format ? { format: options.format } : {}),
          classifier,
          limits,
          signal: options.signal,
        });
  const result: MineResult = {
    sources: 0,
    added: 0,
    kept: 0,
    removed: 0,
    sourcesRemoved: 0,
    skipped: 0,
    excluded: 0,
    errors: [],
  };
  const sweeps = new Map<string, SourceSweep>();
  const seen = new Set<string>();
  let files = 0;
  let done = 0;
  let unflushed = 0;
  let finished = false;
  try {
    for await (const item of sources) {
      switch (item.type) {
        case "files":
          files = item.files;
          yield { type: "start", mode: options.mode, path, files };
          break;
        case "excluded":
          result.excluded++;
          yield { type: "excluded", file: item.file, reason: item.reason };
          break;
        case "error":
          result.errors.push(item.error);
          yield { type: "error", error: item.error };
          break;
        case "sweep":
          sweeps.set(item.sweep.origin, item.sweep);
          break;
        case "file-done":
          done++;
          yield { type: "file", file: item.file, done, files };
          break;
        case "job": {
          throwIfAborted(options.signal);
          const { job } = item;
          result.sources++;
          seen.add(job.key);
          const previous = sink.getSource(job.key);
          if (previous?.contentHash === job.hash) {
            result.skipped++;
            yield {
              type: "source",
              key: job.key,
              file: job.file,
              status: "unchanged",
              added: 0,
              kept: 0,
              removed: 0,
            };
            break;
          }
          try {
            const drafts = uniqueDrafts(job.drafts());
            const filed = await fileSource(sink, job, drafts, previous !== undefined, batchDrafts);
            for (let part = 2; part <= filed.parts; part++) seen.add(partKey(job.key, part));
            unflushed += drafts.length;
            if (unflushed >= limits.maxUnflushedDrafts) {
              unflushed = 0;
              await sink.flush?.();
            }
            result.added += filed.added;
            result.kept += filed.kept;
            result.removed += filed.removed;
            yield {
              type: "source",
              key: job.key,
              file: job.file,
              status: previous ? "changed" : "added",
              added: filed.added,
              kept: filed.kept,
              removed: filed.removed,
            };
          } catch (error) {
            if (endsRun(error)) throw error;
            const failure = {
              file: job.file,
              message: `could not be filed (${job.key}): ${errorMessage(error)}`,
            };
            result.errors.push(failure);
            yield { type: "error", error: failure };
          }
          break;
        }
      }
    }
    if (unflushed > 0) await sink.flush?.();
    unflushed = 0;
    yield* sweepGone(sink, options.wing, sweeps, seen, result, options.signal);
    finished = true;
  } finally {
    // A run cut short (abort, a thrown error, a consumer that stopped reading) still leaves its
    // filed sources searchable; the error in flight is the one that matters, so a failed flush
    // here is left to the write log, which the palace replays on its next write or open.
    if (!finished && unflushed > 0) await sink.flush?.().catch(rethrowIfFatal);
  }
  yield { type: "done", result };
  return result;
}

/**
 * Removes the sources recorded under the run's wing whose origin a reader swept and that it no
 * longer holds. Runs only after every source was filed (an aborted or failed run removes
 * nothing); each removal is atomic, so a run killed here finishes the sweep when run again. A key
 * seen anywhere in this run stays, whatever origin it was recorded under.
 */
async function* sweepGone(
  sink: DrawerSink,
  wing: string,
  sweeps: ReadonlyMap<string, SourceSweep>,
  seen: ReadonlySet<string>,
  result: MineResult,
  signal: AbortSignal | undefined,
): AsyncGenerator<MineEvent> {
  if (sweeps.size === 0) return;
  for (const kind of SOURCE_KEY_KINDS) {
    const prefix = `${kind}:${wing}/`;
    for (const record of sink.listSources(prefix)) {
      const sweep = record.origin === undefined ? undefined : sweeps.get(record.origin);
      if (sweep === undefined) continue;
      // A part of a long conversation stays while its conversation does (a shorter one drops
      // its extra parts when filed).
      const key = partOwner(record.key) ?? record.key;
      if (sweep.keys.has(key) || seen.has(key) || seen.has(record.key)) continue;
      throwIfAborted(signal);
      const file = sweep.file ?? record.key.slice(prefix.length);
      try {
        const gone = await sink.removeSource(record.key);
        if (!gone.found) continue;
        result.sourcesRemoved++;
        result.removed += gone.removed;
        yield {
          type: "source",
          key: record.key,
          file,
          status: "removed",
          added: 0,
          kept: gone.kept,
          removed: gone.removed,
        };
      } catch (error) {
        if (endsRun(error)) throw error;
        const failure = { file, message: `could not be removed (${record.key}): ${errorMessage(error)}` };
        result.errors.push(failure);
        yield { type: "error", error: failure };
      }
    }
  }
}

/**
 * Files one source's drafts. Up to `batchDrafts` go in one atomic `replaceSource`; a longer
 * source (a conversation of 20,000+ messages, a long Claude Code session) is filed in parts of
 * that size under `partKey`s, the last part first and the source's own key last: its hash,
 * which a later run compares to skip the source, is recorded only once every part is filed, so
 * a run cut short files the rest next time. Parts a shorter version no longer has are removed.
 */
async function fileSource(
  sink: DrawerSink,
  job: SourceJob,
  drafts: DrawerDraft[],
  filedBefore: boolean,
  batchDrafts: number,
): Promise<ReplaceSourceResult & { parts: number }> {
  const parts = Math.max(1, Math.ceil(drafts.length / batchDrafts));
  const total: ReplaceSourceResult = { added: 0, kept: 0, removed: 0 };
  for (let part = parts; part >= 1; part--) {
    const key = partKey(job.key, part);
    const batch =
      parts === 1
        ? drafts
        : drafts
            .slice((part - 1) * batchDrafts, part * batchDrafts)
            .map((draft) => ({ ...draft, source: key }));
    const filed = await sink.replaceSource(key, job.hash, batch, job.origin, { deferVectors: true });
    total.added += filed.added;
    total.kept += filed.kept;
    total.removed += filed.removed;
  }
  if (filedBefore) {
    const prefix = `${partKey(job.key, 2).replace(/#2$/, "")}#`;
    for (const record of sink.listSources(prefix)) {
      const part = record.key.slice(prefix.length);
      if (!/^[0-9]+$/.test(part) || Number(part) <= parts) continue;
      const gone = await sink.removeSource(record.key);
      total.removed += gone.removed;
    }
  }
  return { ...total, parts };
}

/**
 * Whether an error ends the whole run instead of failing one source: an abort, a closed or
 * misconfigured palace. A limit one source ran into (a palace's `palace/limit`) is that source's
 * failure; the run reports it and goes on with the next file.
 */
function endsRun(error: unknown): boolean {
  if (isPalaceError(error, "palace/limit")) return false;
  return isFatalError(error);
}

/**
 * Drafts with the same text and turn in one source would get the same drawer id (a repeated
 * license header, "ok" said twice in one turn); the first is filed, the rest would only collide.
 */
function uniqueDrafts(drafts: DrawerDraft[]): DrawerDraft[] {
  const seen = new Set<string>();
  return drafts.filter((draft) => {
    const key = `${draft.content}\0${draft.turnId ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function checkOptions(options: MineOptions): { rooms: ReturnType<typeof parseRoomRules> } {
  if (typeof options !== "object" || options === null) {
    throw invalidInput("options", 'must be an object like { mode: "convos", wing: "me" }');
  }
  if (options.mode !== "convos" && options.mode !== "project") {
    throw invalidInput("mode", `must be "convos" or "project", got ${JSON.stringify(options.mode)}`);
  }
  if (typeof options.wing !== "string" || options.wing.trim() === "") {
    throw invalidInput("wing", "must be non-empty text: the person or project the drawers belong to");
  }
  const wingProblem = nameProblem(options.wing);
  if (wingProblem !== undefined) throw invalidInput("wing", wingProblem);
  if (options.format !== undefined) {
    if (!(CONVERSATION_FORMATS as readonly string[]).includes(options.format)) {
      throw invalidInput(
        "format",
        `must be one of ${CONVERSATION_FORMATS.join(", ")}, got ${JSON.stringify(options.format)}`,
      );
    }
    if (options.mode === "project") throw invalidInput("format", "applies to --mode convos only");
  }
  if (options.chunking !== undefined && options.chunking !== "turn" && options.chunking !== "exchange") {
    throw invalidInput("chunking", `must be "turn" or "exchange", got ${JSON.stringify(options.chunking)}`);
  }
  return { rooms: options.rooms === undefined ? [] : parseRoomRules(options.rooms) };
}
