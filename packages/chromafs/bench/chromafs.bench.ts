/**
 * The figures issues 5, 11 and 17 name, measured in one run against a real Chroma server holding the
 * Mintlify corpus, side by side with their baselines (unaccelerated just-bash grep over the same
 * filesystem, GNU grep on a disk copy, a sandbox that copies the corpus before its first `ls`).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, median, sampleMs, writeBenchResults } from "@atrium/bench";
import { startChromaServer } from "@atrium/chroma";
import { TreeCache } from "../src/fs/tree-cache.js";
import { ingestDocs } from "../src/ingest/ingest-docs.js";
import { openDocsSession } from "../src/session/docs-session.js";
import { ChromaDocStore } from "../src/store/chroma/chroma-doc-store.js";
import { CORPUS_DIR, writeDiskCopy } from "../test/oracle/disk-copy.js";
import { runGnu } from "../test/oracle/run-gnu.js";
import { measureMcpHttp } from "./mcp-http-load.js";
import { measureSearchQuality } from "./search-eval.js";

/** A row whose value is itself a ratio; the baseline names the figure it was divided by (or into). */
function ratioRow(metric: string, value: number, baseline: string, baselineValue: number): BenchRow {
  return { metric, value, unit: "×", baseline, baselineValue };
}

/** `<name>_ms`, GNU's `<name>_gnu_disk_ms` and their `<name>_ratio_vs_gnu_disk`. */
function versusGnu(name: string, ours: number, gnu: number): BenchRow[] {
  return [
    { metric: `${name}_ms`, value: ours, unit: "ms" },
    { metric: `${name}_gnu_disk_ms`, value: gnu, unit: "ms" },
    ratioRow(`${name}_ratio_vs_gnu_disk`, ours / gnu, `${name}_gnu_disk_ms`, gnu),
  ];
}

const GREP_TERMS = ["Kubernetes", "webhook", "SAML", "OpenAPI", "analytics"];
/** Regexes and alternations an agent types, narrowed by the literals every match holds. */
const GREP_REGEXES: readonly (readonly string[])[] = [
  ["-rnE", "webhook|SAML"],
  ["-rniE", "kube(rnetes)?"],
  ["-rn", "-e", "OpenAPI spec", "-e", "AsyncAPI"],
  ["-rnE", "[0-9]+ ms"],
];
const CONCURRENT_SESSIONS = 50;
/** Every page through sort and uniq; `$R` is the corpus root (empty in ChromaFs). */
const PIPELINE = "cat $(find $R/ -type f | sort) | sort | uniq -c | sort -rn | head -5";

const dataDir = mkdtempSync(join(tmpdir(), "chromafs-bench-"));
const server = await startChromaServer({ path: dataDir });
try {
  const ingestStart = performance.now();
  await ingestDocs({ dir: CORPUS_DIR, collection: "bench", url: server.url });
  const ingestSeconds = (performance.now() - ingestStart) / 1000;

  const store = await ChromaDocStore.open({ url: server.url, collection: "bench" });
  const cache = new TreeCache(store);
  await openDocsSession({ store, treeCache: cache });
  const disk = await writeDiskCopy(store);

  const warm = await sampleMs(() => openDocsSession({ store, treeCache: cache }), {
    iterations: 200,
    warmup: 20,
  });
  const cold = await sampleMs(() => openDocsSession({ store, treeCache: new TreeCache(store) }), {
    iterations: 20,
  });

  /**
   * A new session as a serving process opens it: over a tree cache whose tree is loaded but whose
   * page cache is empty. The store itself is the process's one store: its grep index is loaded
   * and the chunks earlier greps read are in its chunk cache (GNU grep's files are in the OS page
   * cache alike: it is timed after warm-up runs). `grep_r_new_store_ms` times the other end.
   */
  const coldPagesSession = async (accelerateGrep = true) => {
    const fresh = new TreeCache(store);
    await fresh.index({ groups: [] });
    return openDocsSession({ store, treeCache: fresh, accelerateGrep });
  };
  /** Median time of `command` run first thing in a session with no page cached. */
  const coldCommandMs = async (commands: readonly string[], iterations: number, accelerateGrep = true) => {
    const times: number[] = [];
    for (const command of commands) {
      for (let i = 0; i < iterations + 1; i++) {
        const session = await coldPagesSession(accelerateGrep);
        const start = performance.now();
        const result = await session.exec(command);
        if (i > 0) times.push(performance.now() - start);
        if (result.exitCode !== 0) throw new Error(`${command} failed: ${result.stderr}`);
      }
    }
    return median(times);
  };
  const grepMs = (accelerateGrep: boolean, iterations: number) =>
    coldCommandMs(
      GREP_TERMS.map((term) => `grep -rn ${term} /`),
      iterations,
      accelerateGrep,
    );
  const accelerated = await grepMs(true, 10);
  // The first grep of a store just opened: the grep index read and decoded, every chunk fetched.
  const newStoreTimes: number[] = [];
  for (const term of GREP_TERMS) {
    for (let i = 0; i < 3; i++) {
      const fresh = await ChromaDocStore.open({ url: server.url, collection: "bench" });
      const session = await openDocsSession({ store: fresh, treeCache: new TreeCache(fresh) });
      await session.exec("ls /");
      const start = performance.now();
      const result = await session.exec(`grep -rn ${term} /`);
      newStoreTimes.push(performance.now() - start);
      if (result.exitCode !== 0) throw new Error(`grep -rn ${term} / failed: ${result.stderr}`);
    }
  }
  const newStore = median(newStoreTimes);
  const unaccelerated = await grepMs(false, 2);
  const gnuTimes: number[] = [];
  for (const term of GREP_TERMS) {
    gnuTimes.push(
      await sampleMs(() => spawnSync("grep", ["-rn", term, disk.root]), { iterations: 20, warmup: 3 }),
    );
  }
  const gnu = median(gnuTimes);
  const quoted = (args: readonly string[]) => args.map((arg) => `'${arg}'`).join(" ");
  const regex = await coldCommandMs(
    GREP_REGEXES.map((args) => `grep ${quoted(args)} /`),
    10,
  );
  const gnuRegexTimes: number[] = [];
  for (const args of GREP_REGEXES) {
    gnuRegexTimes.push(
      await sampleMs(() => spawnSync("grep", [...args, disk.root]), { iterations: 20, warmup: 3 }),
    );
  }
  const gnuRegex = median(gnuRegexTimes);

  // The text tools over the whole corpus (issue 11's heavy command), in a session whose pages
  // are cached, against GNU bash and coreutils on the disk copy (same output: see the oracle).
  const pipelineSession = await openDocsSession({ store, treeCache: cache });
  const pipelineMs = await sampleMs(
    async () => {
      const result = await pipelineSession.exec(PIPELINE.replaceAll("$R", ""));
      if (result.exitCode !== 0 || result.stdout === "")
        throw new Error(`${PIPELINE} failed: ${result.stderr}`);
    },
    { iterations: 5, warmup: 1 },
  );
  const pipelineGnuMs = await sampleMs(() => runGnu(PIPELINE, disk.root), { iterations: 5, warmup: 1 });

  const pages = ["/quickstart.mdx", "/zh/index.mdx", "/api-playground/overview.mdx", "/deploy/ci.mdx"];
  const cat = await coldCommandMs(
    pages.map((page) => `cat ${page}`),
    5,
  );

  const sandbox = await sampleMs(
    () => {
      const copy = mkdtempSync(join(tmpdir(), "chromafs-sandbox-"));
      cpSync(disk.root, copy, { recursive: true });
      spawnSync("ls", [copy]);
      rmSync(copy, { recursive: true, force: true });
    },
    { iterations: 5, warmup: 1 },
  );

  const mix = [
    "ls /zh",
    "cat /quickstart.mdx | head -20",
    "grep -rn Kubernetes /deploy",
    "grep -rl webhook / | wc -l",
  ];
  const concurrentStart = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENT_SESSIONS }, async () => {
      const session = await openDocsSession({ store, treeCache: cache });
      for (const command of mix) await session.exec(command);
    }),
  );
  const commandsPerSecond =
    (CONCURRENT_SESSIONS * mix.length) / ((performance.now() - concurrentStart) / 1000);

  const rows: BenchRow[] = [
    { metric: "session_start_warm_ms", value: warm, unit: "ms" },
    { metric: "session_start_cold_ms", value: cold, unit: "ms" },
    ...versusGnu("grep_r", accelerated, gnu),
    { metric: "grep_r_unaccelerated_ms", value: unaccelerated, unit: "ms" },
    { metric: "grep_r_new_store_ms", value: newStore, unit: "ms" },
    ratioRow(
      "grep_r_speedup_vs_unaccelerated",
      unaccelerated / accelerated,
      "grep_r_unaccelerated_ms",
      unaccelerated,
    ),
    ...versusGnu("grep_re", regex, gnuRegex),
    ...versusGnu("sort_pipeline", pipelineMs, pipelineGnuMs),
    { metric: "cat_ms", value: cat, unit: "ms" },
    { metric: "sandbox_copy_start_ms", value: sandbox, unit: "ms" },
    ratioRow("session_start_speedup_vs_sandbox", sandbox / warm, "sandbox_copy_start_ms", sandbox),
    { metric: "ingest_s", value: ingestSeconds, unit: "s" },
    { metric: "concurrent_cmds_per_s", value: commandsPerSecond, unit: "cmd/s" },
    ...(await measureMcpHttp({ store })),
    ...(await measureSearchQuality(store)),
  ];
  writeBenchResults("chromafs", rows);
  disk.remove();
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
