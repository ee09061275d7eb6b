import { relative } from "node:path";
import { ingestProgressBar } from "@atrium/chromafs";
import { defaultServerName, type McpServerConfig, parseMcpCommandLine } from "@atrium/mcp";
import { AbortError, ConfigError, isFatalError } from "@atrium/spec";
import type { AssistantEvent } from "../assistant/assistant-events.js";
import { createAssistant } from "../assistant/create-assistant.js";
import { DEFAULT_DATA_DIR } from "../docs/default-locations.js";
import { type DocsLibrary, openDocsLibrary } from "../docs/docs-library.js";
import { loadEvalQuestions } from "../eval/eval-questions.js";
import { runEval } from "../eval/run-eval.js";
import { DEFAULT_DEMO_LIMITS } from "../limits.js";
import { openPalaceMemory, type PalaceMemory, palaceDirIn } from "../memory/palace-memory.js";
import { resolveDemoModel } from "../models/resolve-demo-model.js";
import type { ExecutorChoice, UnavailableExecutor } from "../web/executor-choice.js";
import { type ExecutorChoices, executorChoices, inProcessExecutorChoices } from "../web/executor-choices.js";
import { serveWebUntilStopped } from "../web/run-web.js";
import { type DemoArgs, parseDemoArgs, USAGE } from "./cli-args.js";
import { DEMO_QUESTIONS, MEMORY_DEMO_QUESTIONS } from "./demo-questions.js";
import { formatEvalReport } from "./eval-table.js";
import { tracePrinter } from "./trace-printer.js";

export interface DemoIo {
  out: NodeJS.WriteStream | { write(text: string): unknown; isTTY?: boolean };
  err: NodeJS.WriteStream | { write(text: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C: the question in flight stops, and everything started is closed. */
  signal: AbortSignal;
}

const INTERRUPTED = "\ndemo: interrupted; stopped the question in flight and the Chroma server\n";

/** The whole CLI: returns the exit code (0 done, 1 a question failed, 2 usage, 130 interrupted). */
export async function runDemo(argv: readonly string[], io: DemoIo): Promise<number> {
  const code = await runDemoUntilDone(argv, io);
  // Ctrl-C reaches the terminal's whole process group: the micro-VM's QEMU may die of it and
  // fail the question before this process has handled its own SIGINT. Still an interrupt.
  if (code === 1 && io.signal.aborted) {
    io.err.write(INTERRUPTED);
    return 130;
  }
  return code;
}

async function runDemoUntilDone(argv: readonly string[], io: DemoIo): Promise<number> {
  let args: DemoArgs;
  try {
    args = parseDemoArgs(argv);
  } catch (error) {
    io.err.write(`demo: ${(error as Error).message}\n`);
    return 2;
  }
  if (args.help) {
    io.out.write(`${USAGE}\n`);
    return 0;
  }
  const color = Boolean(io.out.isTTY) && !io.env.NO_COLOR && io.env.TERM !== "dumb";
  const say = (text: string) => io.out.write(text);
  let chosen: ReturnType<typeof resolveDemoModel>;
  let mcp: Record<string, McpServerConfig> | undefined;
  // Without --executor the default (QuickJS) needs no look at the host; with it, every executor
  // this app has is checked, so a micro-VM the host cannot boot is refused with the reason.
  let executors: ExecutorChoice[] = inProcessExecutorChoices();
  let executor: ExecutorChoice;
  // The web page's switch: found while Chroma starts (the micro-VM's host check may take seconds
  // the first time, when it builds its kernel and agent and probes KVM; then ~10 ms).
  let webExecutors: Promise<ExecutorChoices> | undefined;
  try {
    chosen = resolveDemoModel(io.env);
    mcp = mcpServers(args.mcp);
    let unavailable: UnavailableExecutor[] = [];
    if (args.executor !== undefined) ({ offered: executors, unavailable } = await executorChoices());
    executor = chooseExecutor(executors, unavailable, args.executor);
  } catch (error) {
    io.err.write(`demo: ${(error as Error).message}\n`);
    return 2;
  }
  say(
    `Atrium demo: an agent that answers from the docs by reading them like a filesystem.\n${chosen.banner}\n`,
  );
  let docs: DocsLibrary | undefined;
  let memory: PalaceMemory | undefined;
  try {
    // A bar on a terminal, nothing in a log or with --json.
    const bar = ingestProgressBar({ stream: io.err, quiet: args.json });
    const began = performance.now();
    say("Starting the embedded Chroma server and checking the docs corpus…\n");
    // The first sandbox of a process boots a worker (about a second from sources): meanwhile.
    // A failure here shows again, with its reason, when the first question makes its sandbox.
    const sandboxWarm = executor.prewarm?.().catch(() => undefined);
    webExecutors = args.web ? executorChoices() : undefined;
    docs = await openDocsLibrary({
      corpusDir: args.corpus,
      dataDir: args.data,
      onIngestProgress: bar.onProgress,
      onNotice: (message) => bar.print(`  ${message}`),
    });
    bar.done();
    const ingest = docs.lastIngest;
    const where = relative(process.cwd(), docs.corpusDir) || ".";
    say(
      ingest.summary
        ? `Docs: ${ingest.reason === "first" ? "first ingest of" : "re-ingested what changed in"} ${where}: ${ingest.summary.pages.total} pages (${ingest.summary.pages.added} added, ${ingest.summary.pages.changed} changed, ${ingest.summary.pages.removed} removed) in ${(ingest.ms / 1000).toFixed(1)} s\n`
        : `Docs: ${where} unchanged since the last ingest (${ingest.ms.toFixed(0)} ms to check); ready in ${((performance.now() - began) / 1000).toFixed(1)} s\n`,
    );
    await sandboxWarm;
    if (io.signal.aborted) throw new AbortError("interrupted");
    if (args.memory && args.eval) {
      say("Memory: off for --eval (the evaluation measures answers from the docs alone).\n");
    } else if (args.memory) {
      // The palace's vectors go to the docs' Chroma server: one server for the whole demo.
      memory = await openPalaceMemory({
        dir: palaceDirIn(args.data ?? DEFAULT_DATA_DIR),
        chromaUrl: docs.chromaUrl,
      });
      say(
        `Memory: the palace in ${shownPath(memory.dir)}, wing "${args.user}" (--user NAME picks another, --no-memory turns it off)\n`,
      );
    } else {
      say("Memory: off (--no-memory): nothing is recalled or filed.\n");
    }
    if (args.approvals === "memory-writes") {
      say(
        memory
          ? args.web
            ? `Approvals: memory writes wait for Approve or Deny in the page's trace (refused after ${DEFAULT_DEMO_LIMITS.approvalTimeoutMs / 1000} s without an answer)\n`
            : "Approvals: memory writes need approval and the command line cannot ask: they are refused (--web asks in the page)\n"
          : "Approvals: nothing to approve without memory\n",
      );
    }
    if (io.signal.aborted) throw new AbortError("interrupted");
    await using assistant = await createAssistant({
      docs,
      model: chosen.model,
      mcp,
      memory,
      executor: executor.factory,
      approvals: args.approvals,
    });
    if (args.executor) say(`Executor: ${executor.label} (--executor ${executor.id})\n`);
    for (const error of assistant.mcpErrors) io.err.write(`demo: ${error.message}\n`);
    if (mcp) say(`Tools: ${assistant.toolNames.join(", ")}\n`);
    const user = { id: args.user, groups: args.groups };
    const print = tracePrinter(say, { color, verbose: args.verbose });
    if (args.web) {
      // Ctrl-C is how the web UI ends: a clean stop, exit 0.
      await serveWebUntilStopped({
        executors: await webExecutors!,
        assistant,
        memory,
        user,
        chosen,
        host: args.host,
        port: args.port,
        say,
        signal: io.signal,
      });
      return 0;
    }
    if (args.eval) {
      const questions = loadEvalQuestions(args.evalFile);
      say(`Evaluating ${questions.length} questions…\n`);
      const report = await runEval(assistant, questions, {
        user,
        signal: io.signal,
        onResult: args.json
          ? undefined
          : (result, index) =>
              say(
                `  ${String(index + 1).padStart(3)}. ${result.answerCorrect ? "✓" : "✗"} answer ${result.citationCorrect ? "✓" : "✗"} citation  ${result.id} (${result.seconds.toFixed(1)} s)\n`,
              ),
      });
      if (io.signal.aborted) throw new AbortError("interrupted");
      say(args.json ? `${JSON.stringify(report, null, 2)}\n` : formatEvalReport(report, chosen.scripted));
      return 0;
    }
    let failed = 0;
    const questions =
      args.questions.length > 0
        ? args.questions
        : memory
          ? [MEMORY_DEMO_QUESTIONS.first, ...DEMO_QUESTIONS, MEMORY_DEMO_QUESTIONS.last]
          : DEMO_QUESTIONS;
    for (const question of questions) {
      for await (const event of assistant.ask(question, { user, signal: io.signal })) {
        print(event);
        if (isFailedAnswer(event)) failed++;
      }
      if (io.signal.aborted) throw new AbortError("interrupted");
    }
    if (chosen.scripted) {
      say(
        `\nThat was the scripted model. Set ATRIUM_MODEL (see above) for a real one; run with --help for options.\n`,
      );
    }
    return failed > 0 ? 1 : 0;
  } catch (error) {
    if (io.signal.aborted) {
      io.err.write(INTERRUPTED);
      return 130;
    }
    io.err.write(`demo: ${(error as Error).message}\n`);
    return error instanceof ConfigError || !isFatalError(error) ? 2 : 1;
  } finally {
    // The assistant closed the memory already when it was made; closing again is a no-op.
    await memory?.close();
    await docs?.close();
    // Warm sandbox workers (Python's pool) and the micro-VM's QEMU end with the demo, or they
    // would keep it running.
    const web = await webExecutors?.catch(() => undefined);
    await Promise.allSettled([...executors, ...(web?.offered ?? [])].map((choice) => choice.shutdown?.()));
  }
}

/**
 * The executor `--executor` names (the first, QuickJS, without it); a wrong id says which exist,
 * and one this host cannot run says why.
 */
function chooseExecutor(
  executors: readonly ExecutorChoice[],
  unavailable: readonly UnavailableExecutor[],
  id: string | undefined,
): ExecutorChoice {
  const found = id === undefined ? executors[0] : executors.find((choice) => choice.id === id);
  if (found) return found;
  const ids = executors.map((choice) => choice.id).join(", ");
  const missing = unavailable.find((choice) => choice.id === id);
  if (missing)
    throw new ConfigError(`--executor ${id}: ${missing.label} is ${missing.reason}; or pick one of ${ids}`);
  const notes = unavailable.map((choice) => `; ${choice.id} is ${choice.reason}`).join("");
  throw new ConfigError(`--executor ${JSON.stringify(id)} is not an executor; pick one of ${ids}${notes}`);
}

function isFailedAnswer(event: AssistantEvent): boolean {
  return event.type === "answer" && event.state !== "success";
}

function mcpServers(lines: readonly string[]): Record<string, McpServerConfig> | undefined {
  if (lines.length === 0) return undefined;
  const servers: Record<string, McpServerConfig> = {};
  for (const line of lines) {
    const config = parseMcpCommandLine(line);
    let name = defaultServerName(config);
    for (let n = 2; name in servers; n++) name = `${defaultServerName(config)}${n}`;
    servers[name] = config;
  }
  return servers;
}

/** A path relative to where the demo runs when it is inside it, else absolute. */
function shownPath(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown.startsWith("..") ? path : shown || ".";
}
