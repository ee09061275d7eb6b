/**
 * @atrium/demo figures (bench-results/demo.json), with the scripted docs model so the model's
 * share is the harness's own: the first ingest of the Mintlify corpus, what a warm start costs to
 * find the corpus unchanged (against chromafs's incremental ingest finding the same), where a
 * question's time goes (docs retrieval, memory, sandbox execution, model; medians over the demo
 * questions, memory = the palace's recall before and filing after each question), and the time
 * from starting the CLI to its first answer on a warm start.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, compared, median, writeBenchResults } from "@atrium/bench";
import { ingestDocs } from "@atrium/chromafs";
import { DEMO_QUESTIONS } from "../src/cli/demo-questions.js";
import { corpusFingerprint } from "../src/docs/corpus-fingerprint.js";
import { APP_DIR } from "../src/docs/default-locations.js";
import {
  type AnswerEvent,
  createAssistant,
  DEFAULT_CORPUS_DIR,
  openDocsLibrary,
  openPalaceMemory,
  palaceDirIn,
  scriptedDocsModel,
} from "../src/index.js";

const ROUNDS = 3;
const rows: BenchRow[] = [];
const dataDir = await mkdtemp(join(tmpdir(), "atrium-demo-bench-"));
try {
  // First run: a fresh data dir, the whole corpus ingested.
  let began = performance.now();
  const docs = await openDocsLibrary({ dataDir });
  rows.push({ metric: "first_open_with_ingest_s", value: (performance.now() - began) / 1000, unit: "s" });
  rows.push({
    metric: "first_ingest_pages",
    value: docs.lastIngest.summary?.pages.total ?? 0,
    unit: "pages",
  });

  // A warm start's corpus check, against chromafs's incremental ingest with nothing to do.
  const checks: number[] = [];
  const reingests: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    began = performance.now();
    await corpusFingerprint(DEFAULT_CORPUS_DIR);
    checks.push(performance.now() - began);
    began = performance.now();
    await ingestDocs({ dir: DEFAULT_CORPUS_DIR, collection: docs.collection, url: docs.chromaUrl });
    reingests.push(performance.now() - began);
  }
  rows.push(
    compared("warm_corpus_check_ms", median(checks), "ms", "reingest_unchanged_ms", median(reingests)),
  );

  // Where a question's time goes, warm (the first question of the process warms the sandbox), with
  // memory as the CLI has it: the palace in the data dir, its vectors on the docs' Chroma server.
  began = performance.now();
  const memory = await openPalaceMemory({ dir: palaceDirIn(dataDir), chromaUrl: docs.chromaUrl });
  rows.push({ metric: "memory_open_ms", value: performance.now() - began, unit: "ms" });
  const assistant = await createAssistant({ docs, model: scriptedDocsModel(), memory });
  const timings: AnswerEvent["timing"][] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    for (const question of DEMO_QUESTIONS) {
      for await (const event of assistant.ask(question)) {
        if (event.type === "answer" && round > 0) timings.push(event.timing);
      }
    }
  }
  for (const part of ["retrievalMs", "memoryMs", "executionMs", "modelMs", "totalMs"] as const) {
    const name = part.replace(/Ms$/, "");
    rows.push({ metric: `question.${name}_ms`, value: median(timings.map((t) => t[part])), unit: "ms" });
  }
  await assistant.close();
  await docs.close();

  // A user's warm start: the CLI (through tsx, as `npm run demo` runs it) to its first answer.
  const firstAnswers: number[] = [];
  for (let i = 0; i < ROUNDS; i++) firstAnswers.push(await cliTimeToFirstAnswer(dataDir));
  rows.push({ metric: "warm_start_first_answer_ms", value: median(firstAnswers), unit: "ms" });
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
writeBenchResults("demo", rows);

async function cliTimeToFirstAnswer(data: string): Promise<number> {
  const began = performance.now();
  const child = spawn(
    process.execPath,
    [
      "--conditions=@atrium/source",
      "--import",
      "tsx",
      "src/main.ts",
      "--data",
      data,
      "-q",
      DEMO_QUESTIONS[0]!,
    ],
    {
      cwd: APP_DIR,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, ATRIUM_MODEL: "", NO_COLOR: "1" },
    },
  );
  let out = "";
  let answeredAt: number | undefined;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    if (answeredAt === undefined && out.includes("━━ Answer ━━")) answeredAt = performance.now();
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0 || answeredAt === undefined)
    throw new Error(`the demo CLI exited with ${code} before answering:\n${out}`);
  return answeredAt - began;
}
