/**
 * @atrium/chroma figures: what a server per test file or per CLI run costs (cold start to the
 * first heartbeat, reuse of a running one, stop), and how fast the offline embedding is over the
 * Mintlify docs, against the time it takes just to read those files' text again.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compared, median, sampleMs, writeBenchResults } from "@atrium/bench";
import { hashingEmbedding, isChromaAlive, startChromaServer } from "../src/index.js";

const CORPUS = join(import.meta.dirname, "..", "..", "..", "fixtures", "corpora", "mintlify-docs");
const RUNS = 5;

const root = await mkdtemp(join(tmpdir(), "atrium-chroma-bench-"));
try {
  const starts: number[] = [];
  const reuses: number[] = [];
  const stops: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const dataDir = join(root, `data-${run}`);
    let began = performance.now();
    const server = await startChromaServer({ path: dataDir });
    starts.push(performance.now() - began);
    began = performance.now();
    const reused = await startChromaServer({ path: dataDir });
    reuses.push(performance.now() - began);
    if (reused.owned || reused.pid !== server.pid)
      throw new Error("the second start did not reuse the server");
    began = performance.now();
    await server.stop();
    stops.push(performance.now() - began);
  }
  const server = await startChromaServer({ path: join(root, "heartbeat") });
  const heartbeat = await sampleMs(() => isChromaAlive(server.url), { iterations: 100 });
  await server.stop();

  const texts = await readCorpus(CORPUS);
  const megabytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1024 / 1024;
  const embedding = hashingEmbedding();
  const embedMs = await sampleMs(() => embedding.embed(texts), { iterations: 5, warmup: 1 });
  const readMs = await sampleMs(() => readCorpus(CORPUS), { iterations: 5, warmup: 1 });

  writeBenchResults("chroma", [
    { metric: "server_start_ms", value: median(starts), unit: "ms" },
    compared("server_reuse_ms", median(reuses), "ms", "server_start_ms", median(starts)),
    { metric: "server_stop_ms", value: median(stops), unit: "ms" },
    { metric: "heartbeat_ms", value: heartbeat, unit: "ms" },
    { metric: "hashing_embed_corpus_mb", value: megabytes, unit: "MiB" },
    compared("hashing_embed_corpus_ms", embedMs, "ms", "reading the same files", readMs),
    { metric: "hashing_embed_mb_per_s", value: megabytes / (embedMs / 1000), unit: "MiB/s" },
  ]);
} finally {
  await rm(root, { recursive: true, force: true });
}

async function readCorpus(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && /\.mdx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? dir, entry.name));
  return Promise.all(files.map((file) => readFile(file, "utf8")));
}
