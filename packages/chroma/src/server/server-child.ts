import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ChromaStartError } from "../errors.js";
import { isChromaAlive } from "../heartbeat.js";
import { DEFAULT_CHROMA_LIMITS } from "../limits.js";
import { HEARTBEAT_POLL_INTERVAL_MS } from "../tuning.js";
import { stopOnExit } from "./exit-cleanup.js";
import { LogRing } from "./log-ring.js";
import { SERVER_LOG_FILE } from "./server-info-file.js";
import { SERVER_LAUNCHER_SOURCE } from "./server-launcher.js";
import { classifyStartFailure, describeStartFailure, describeStartTimeout } from "./start-failure.js";

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One server process that answered its heartbeat. */
export interface ServerChild {
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /** Resolves when the process has exited, for whatever reason. */
  readonly exited: Promise<ChildExit>;
  /** SIGTERM, then SIGKILL after `serverStopTimeoutMs`; resolves once it has exited. */
  terminate(): Promise<void>;
}

/** The port was taken between probing and binding: the caller may try another. */
export class PortTakenError extends Error {
  constructor(readonly startError: ChromaStartError) {
    super(startError.message);
  }
}

export function chromaUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function chromaCliPath(): string {
  const require = createRequire(import.meta.url);
  // "chromadb" resolves to dist/cjs/chromadb.cjs; the CLI sits at dist/cli.mjs.
  return join(dirname(require.resolve("chromadb")), "..", "cli.mjs");
}

/**
 * Starts one server process on `dataDir` and `port` and resolves once it answers its heartbeat.
 * Its output is appended to the data dir's log file and to `ring` (shared across restarts, so
 * `server.logs` reads as one history).
 */
export async function launchServerChild(
  dataDir: string,
  host: string,
  port: number,
  timeoutMs: number,
  ring: LogRing,
): Promise<ServerChild> {
  const url = chromaUrl(host, port);
  const logFile = join(dataDir, SERVER_LOG_FILE);
  const logStream = createWriteStream(logFile, { flags: "a" });
  logStream.write(`--- ${new Date().toISOString()} starting Chroma on ${url} by pid ${process.pid}\n`);
  // This launch's output on its own too: a restart must not be judged by an earlier run's lines.
  const own = new LogRing();
  const child = spawn(
    process.execPath,
    [
      "-e",
      SERVER_LAUNCHER_SOURCE,
      chromaCliPath(),
      String(process.pid),
      "run",
      "--path",
      dataDir,
      "--host",
      host,
      "--port",
      String(port),
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  const onOutput = (chunk: Buffer) => {
    logStream.write(chunk);
    ring.push(chunk.toString("utf8"));
    own.push(chunk.toString("utf8"));
  };
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);
  // A server killed with output unread (Ctrl-C reaches the whole process group) may reset these
  // pipes; its end is reported by "exit", and an unheard stream error would crash the host.
  child.stdout?.on("error", () => {});
  child.stderr?.on("error", () => {});
  stopOnExit(child);
  const exited = new Promise<ChildExit>((resolveExit) =>
    child.once("exit", (code, signal) => resolveExit({ code, signal })),
  );
  // "close", not "exit": output can still arrive after "exit", and a write after end is an error.
  child.once("close", () => logStream.end());
  const output = () => own.text();

  const failure = (exitCode: number | null, signal: NodeJS.Signals | null) => {
    const text = output();
    const error = new ChromaStartError(
      dataDir,
      describeStartFailure({ dataDir, url, port, exitCode, signal, output: text }),
    );
    return classifyStartFailure(text) === "port-in-use" ? new PortTakenError(error) : error;
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      await exited;
      throw failure(child.exitCode, child.signalCode);
    }
    if (classifyStartFailure(output()) === "port-in-use") {
      await terminate(child, exited);
      throw failure(null, null);
    }
    if (await isChromaAlive(url, HEARTBEAT_POLL_INTERVAL_MS * 10)) break;
    if (Date.now() > deadline) {
      await terminate(child, exited);
      throw new ChromaStartError(
        dataDir,
        describeStartTimeout({ dataDir, url, timeoutMs, output: output() }),
      );
    }
    await sleep(HEARTBEAT_POLL_INTERVAL_MS);
  }
  return { pid: child.pid, port, url, exited, terminate: () => terminate(child, exited) };
}

async function terminate(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), DEFAULT_CHROMA_LIMITS.serverStopTimeoutMs);
  await exited;
  clearTimeout(timer);
}
