import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchRow } from "@atrium/bench";
import { type ChromaServer, hashingEmbedding, startChromaServer } from "@atrium/chroma";
import type { Embedding } from "@atrium/spec";
import { openPalace } from "../../src/open-palace.js";
import type { Palace } from "../../src/palace.js";
import type { SearchMode } from "../../src/search/hybrid-search.js";
import { type LocomoSearchFactory, runLocomoBench } from "./locomo-bench.js";
import { type LocomoConversation, loadLocomo } from "./locomo-format.js";
import { isScoredQuestion } from "./locomo-score.js";
import { plainBm25Search } from "./plain-bm25-search.js";
import { plainVectorSearch } from "./plain-vector-search.js";

/** What `runPalaceLocomo` is doing, for a progress line. */
export type PalaceLocomoProgress =
  | {
      phase: "mine";
      /** The palace filed: a conversation's sample id, or "all" for the shared palace of `scoped`. */
      palace: string;
      drawers: number;
      ms: number;
    }
  | {
      phase: "search";
      /** "hybrid", "bm25", "vector", "plain-bm25", "plain-vector", "scoped" or "flat". */
      mode: string;
      /** Questions of this mode answered so far, of `total`. */
      done: number;
      total: number;
    };

export interface PalaceLocomoOptions {
  /** Where the palaces are built (kept afterwards); default a fresh temporary directory, removed at the end. */
  workDir?: string;
  /** The palaces' embedding and the plain vector baseline's; default the offline hashing embedding. */
  embedding?: Embedding;
  onProgress?: (progress: PalaceLocomoProgress) => void;
  /** Also mine every conversation into one palace, a wing each, and report scoped against flat search. */
  scoped?: boolean;
  /** Keep each palace's records in a PostgreSQL database this gives (a new one per palace), not SQLite. */
  postgresUrl?: () => Promise<string>;
}

/** The palace's own search modes, measured first (hybrid) and beside it (its two legs alone). */
const PALACE_MODES: readonly SearchMode[] = ["hybrid", "bm25", "vector"];

/**
 * The LoCoMo retrieval benchmark against real palaces: each conversation of `file` is filed into
 * its own palace, one drawer per turn in conversation order (so the lexical index sees each turn's
 * neighbours), and every scored question is searched in the palace's hybrid mode, beside its BM25
 * and vector legs alone and the plain BM25 and plain vector baselines over the same drafts. With
 * `scoped`, every conversation also goes into one palace (a wing each) and each question is
 * searched inside its wing and across the whole palace. Returns the bench rows (`runLocomoBench`).
 *
 * The palaces share one Chroma server (each its own collection), started here and stopped at the end.
 */
export async function runPalaceLocomo(file: string, options: PalaceLocomoOptions = {}): Promise<BenchRow[]> {
  const embedding = options.embedding ?? hashingEmbedding();
  const conversations = loadLocomo(await readFile(file, "utf8"));
  const totalQuestions = conversations.reduce(
    (sum, conversation) => sum + conversation.questions.filter(isScoredQuestion).length,
    0,
  );
  const root = options.workDir ?? (await mkdtemp(join(tmpdir(), "atrium-locomo-")));
  if (options.workDir !== undefined) await mkdir(root, { recursive: true });
  const work = options.workDir === undefined ? root : await mkdtemp(join(root, "locomo-"));
  let server: ChromaServer | undefined;
  const palaces = new Map<string, Promise<Palace>>();
  try {
    server = await startChromaServer({ path: join(work, "chroma") });
    const chromaUrl = server.url;

    /** The palace holding exactly `group`, mined on first use and shared by every mode after. */
    const palaceOf = (group: readonly LocomoConversation[]): Promise<Palace> => {
      const key = group.length === 1 ? (group[0]?.sampleId ?? "") : "all";
      let palace = palaces.get(key);
      if (!palace) {
        palace = minePalace(join(work, `palace-${palaces.size}`), group, {
          embedding,
          chromaUrl,
          postgresUrl: options.postgresUrl,
          report: (drawers, ms) => options.onProgress?.({ phase: "mine", palace: key, drawers, ms }),
        });
        palaces.set(key, palace);
      }
      return palace;
    };

    const counted = (mode: string, total: number, factory: LocomoSearchFactory): LocomoSearchFactory => {
      let done = 0;
      return async (group) => {
        const searcher = await factory(group);
        return {
          search: async (query, searchOptions) => {
            const hits = await searcher.search(query, searchOptions);
            done++;
            options.onProgress?.({ phase: "search", mode, done, total });
            return hits;
          },
          close: () => searcher.close?.(),
        };
      };
    };

    const palaceSearch =
      (mode: SearchMode): LocomoSearchFactory =>
      async (group) => {
        const palace = await palaceOf(group);
        return {
          search: async (query, { k, wing }) => {
            const hits = await palace.search(query, {
              k,
              mode,
              recordAccess: false,
              ...(wing === undefined ? {} : { wing }),
            });
            return hits.map((hit) => ({ wing: hit.wing, turnId: hit.turnId ?? "", content: hit.content }));
          },
        };
      };

    const search: Record<string, LocomoSearchFactory> = {};
    for (const mode of PALACE_MODES) search[mode] = counted(mode, totalQuestions, palaceSearch(mode));
    search["plain-bm25"] = counted("plain-bm25", totalQuestions, plainBm25Search());
    search["plain-vector"] = counted("plain-vector", totalQuestions, plainVectorSearch(embedding));

    const scoped = options.scoped
      ? countedScopedFlat(totalQuestions, palaceSearch("hybrid"), options.onProgress)
      : undefined;
    return await runLocomoBench(file, { search, ...(scoped ? { scoped } : {}) });
  } finally {
    for (const palace of palaces.values()) await (await palace.catch(() => undefined))?.close();
    await server?.stop();
    if (options.workDir === undefined) await rm(root, { recursive: true, force: true });
  }
}

/** Files each conversation's drafts, in conversation order, into a new palace in `dir`. */
async function minePalace(
  dir: string,
  group: readonly LocomoConversation[],
  context: {
    embedding: Embedding;
    chromaUrl: string;
    postgresUrl: (() => Promise<string>) | undefined;
    report: (drawers: number, ms: number) => void;
  },
): Promise<Palace> {
  const start = performance.now();
  const palace = await openPalace(dir, {
    create: true,
    embedding: context.embedding,
    chromaUrl: context.chromaUrl,
    ...(context.postgresUrl ? { postgresUrl: await context.postgresUrl() } : {}),
  });
  try {
    let drawers = 0;
    for (const conversation of group) {
      for (let at = 0; at < conversation.drafts.length; at += palace.limits.maxBatchDrafts) {
        const batch = conversation.drafts.slice(at, at + palace.limits.maxBatchDrafts);
        drawers += (await palace.file(batch)).filter((result) => result.created).length;
      }
    }
    context.report(drawers, performance.now() - start);
    return palace;
  } catch (error) {
    await palace.close();
    throw error;
  }
}

/**
 * runLocomoBench asks the scoped factory twice over the same palace, scoped first and flat
 * second; progress names each pass.
 */
function countedScopedFlat(
  total: number,
  factory: LocomoSearchFactory,
  onProgress: PalaceLocomoOptions["onProgress"],
): LocomoSearchFactory {
  let opened = 0;
  return async (group) => {
    const mode = opened++ === 0 ? "scoped" : "flat";
    const searcher = await factory(group);
    let done = 0;
    return {
      search: async (query, searchOptions) => {
        const hits = await searcher.search(query, searchOptions);
        onProgress?.({ phase: "search", mode, done: ++done, total });
        return hits;
      },
    };
  };
}
