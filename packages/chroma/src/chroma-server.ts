import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { errorMessage } from "@atrium/spec";
import { ChromaStartError } from "./errors.js";
import { stopOnExit } from "./exit-cleanup.js";
import { findFreePort } from "./free-port.js";
import { isChromaAlive } from "./heartbeat.js";
import { DEFAULT_CHROMA_LIMITS, resolveChromaLimits } from "./limits.js";
import { LogRing } from "./log-ring.js";
import { type DataDirSnapshot, isWritableDirectory, snapshotDataDir } from "./read-only-snapshot.js";
import {
  isProcessAlive,
  readServerInfo,
  removeServerInfo,
  runsOnDataDir,
  SERVER_LOG_FILE,
  type ServerInfo,
  withStartLock,
  writeServerInfo,
} from "./server-info-file.js";
import { SERVER_LAUNCHER_SOURCE } from "./server-launcher.js";
import { classifyStartFailure, describeStartFailure, describeStartTimeout } from "./start-failure.js";
import { HEARTBEAT_POLL_INTERVAL_MS } from "./tuning.js";

export interface StartChromaServerOptions {
  /** Data directory (created if missing). One server per directory: a second start reuses it. */
  path: string;
  /** Port to listen on; default: a free port picked by the OS. */
  port?: number;
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  host?: string;
  /** Milliseconds to wait for the first heartbeat. */
  startTimeoutMs?: number;
  /**
   * The caller only reads. A data dir this process cannot write (a read-only mount, another
   * user's files) is then served from a private temporary copy, and the original is never
   * written; a server already running on it is reused as usual. Without it, a read-only data
   * dir is an error that says so, since writes would be lost.
   */
  readOnly?: boolean;
}

export interface ChromaServer {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** PID of the server process. */
  readonly pid: number;
  readonly dataDir: string;
  /**
   * True when this call started the server; false when it reused one another process (or an
   * earlier call) started on the same data dir. Only the owner's `stop()` ends the server.
   */
  readonly owned: boolean;
  /** The full server output, appended across runs. */
  readonly logFile: string;
  /** The directory the server really runs on: `dataDir`, or its private copy when `dataDir` is read-only. */
  readonly servedDir: string;
  /** The last lines the server printed (bounded; empty for a reused server). */
  readonly logs: readonly string[];
  /** Stops the server (owner) or just lets go of it (reuser). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the Chroma server that ships in the `chromadb` package on a data directory, or reuses
 * the one already running there, and resolves once it answers its heartbeat.
 */
export async function startChromaServer(options: StartChromaServerOptions): Promise<ChromaServer> {
  // A bad option is the caller's ConfigError, checked before any directory or process is touched.
  resolveChromaLimits({ serverStartTimeoutMs: options.startTimeoutMs });
  const dataDir = resolve(options.path);
  const host = options.host ?? "127.0.0.1";
  if (!(await isWritableDirectory(dataDir)) && (await isDirectory(dataDir))) {
    return startReadOnly(dataDir, host, options);
  }
  await ensureDirectory(dataDir);
  try {
    return await withStartLock(dataDir, async () => {
      const running = await findRunningServer(dataDir);
      if (running) return reusedServer(dataDir, running);
      return await spawnServer(dataDir, host, options);
    });
  } catch (error) {
    if (error instanceof ChromaStartError) throw error;
    throw new ChromaStartError(
      dataDir,
      `Could not start a Chroma server on ${dataDir}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** A data dir this process cannot write: reuse its running server, or serve a private copy. */
async function startReadOnly(
  dataDir: string,
  host: string,
  options: StartChromaServerOptions,
): Promise<ChromaServer> {
  if (!options.readOnly) {
    throw new ChromaStartError(
      dataDir,
      `The Chroma data dir ${dataDir} is read-only for this process, and writing to it (ingest) needs write access. ` +
        "Give this user write access, or open it only to read (readOnly: true; atrium-docs sh and mcp do).",
    );
  }
  const running = await readServerInfo(dataDir);
  if (
    running &&
    isProcessAlive(running.pid) &&
    (await runsOnDataDir(running.pid, dataDir)) &&
    (await isChromaAlive(running.url))
  ) {
    return reusedServer(dataDir, running);
  }
  let snapshot: DataDirSnapshot;
  try {
    snapshot = await snapshotDataDir(dataDir);
  } catch (error) {
    throw new ChromaStartError(
      dataDir,
      `The Chroma data dir ${dataDir} is read-only and could not be copied to a private one to read from: ${errorMessage(error)}`,
      { cause: error },
    );
  }
  try {
    const server = await spawnServer(snapshot.dir, host, options);
    return {
      ...server,
      dataDir,
      get logs() {
        return server.logs;
      },
      stop: async () => {
        await server.stop();
        await snapshot.remove();
      },
    };
  } catch (error) {
    await snapshot.remove();
    throw error;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

async function ensureDirectory(dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true });
    if (!(await stat(dataDir)).isDirectory()) throw new Error("not a directory");
  } catch (error) {
    throw new ChromaStartError(
      dataDir,
      `The Chroma data dir ${dataDir} is not a usable directory (${(error as Error).message}); pass a directory path`,
      { cause: error },
    );
  }
}

async function findRunningServer(dataDir: string): Promise<ServerInfo | undefined> {
  const info = await readServerInfo(dataDir);
  if (!info) return undefined;
  if (!isProcessAlive(info.pid) || !(await runsOnDataDir(info.pid, dataDir))) {
    await removeServerInfo(dataDir, info.pid);
    return undefined;
  }
  if (await isChromaAlive(info.url)) return info;
  throw new ChromaStartError(
    dataDir,
    `Process ${info.pid} is registered as the Chroma server for ${dataDir} (${info.url}) but does not answer its heartbeat. ` +
      "Starting a second server on the same files would corrupt them: stop that process, then try again.",
  );
}

function reusedServer(dataDir: string, info: ServerInfo): ChromaServer {
  return {
    url: info.url,
    host: info.host,
    port: info.port,
    pid: info.pid,
    dataDir,
    servedDir: dataDir,
    owned: false,
    logFile: join(dataDir, SERVER_LOG_FILE),
    logs: [],
    stop: async () => {},
  };
}

function chromaCliPath(): string {
  const require = createRequire(import.meta.url);
  // "chromadb" resolves to dist/cjs/chromadb.cjs; the CLI sits at dist/cli.mjs.
  return join(dirname(require.resolve("chromadb")), "..", "cli.mjs");
}

async function spawnServer(
  dataDir: string,
  host: string,
  options: StartChromaServerOptions,
): Promise<ChromaServer> {
  const { serverStartTimeoutMs } = resolveChromaLimits({ serverStartTimeoutMs: options.startTimeoutMs });
  const attempts = options.port === undefined ? DEFAULT_CHROMA_LIMITS.portAttempts : 1;
  let lastError: ChromaStartError | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const port = options.port ?? (await findFreePort(host));
    try {
      return await spawnOnPort(dataDir, host, port, serverStartTimeoutMs);
    } catch (error) {
      if (!(error instanceof PortTakenError)) throw error;
      lastError = error.startError;
    }
  }
  throw lastError;
}

class PortTakenError extends Error {
  constructor(readonly startError: ChromaStartError) {
    super(startError.message);
  }
}

async function spawnOnPort(
  dataDir: string,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<ChromaServer> {
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const logFile = join(dataDir, SERVER_LOG_FILE);
  const logStream = createWriteStream(logFile, { flags: "a" });
  logStream.write(`--- ${new Date().toISOString()} starting Chroma on ${url} by pid ${process.pid}\n`);
  const ring = new LogRing();
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
  };
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);
  stopOnExit(child);
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  child.once("exit", () => logStream.end());

  const failure = (exitCode: number | null, signal: NodeJS.Signals | null) => {
    const output = ring.text();
    const error = new ChromaStartError(
      dataDir,
      describeStartFailure({ dataDir, url, port, exitCode, signal, output }),
    );
    return classifyStartFailure(output) === "port-in-use" ? new PortTakenError(error) : error;
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
      await exited;
      throw failure(child.exitCode, child.signalCode);
    }
    if (classifyStartFailure(ring.text()) === "port-in-use") {
      await terminate(child, exited);
      throw failure(null, null);
    }
    if (await isChromaAlive(url, HEARTBEAT_POLL_INTERVAL_MS * 10)) break;
    if (Date.now() > deadline) {
      await terminate(child, exited);
      throw new ChromaStartError(
        dataDir,
        describeStartTimeout({ dataDir, url, timeoutMs, output: ring.text() }),
      );
    }
    await sleep(HEARTBEAT_POLL_INTERVAL_MS);
  }

  const pid = child.pid;
  await writeServerInfo(dataDir, {
    pid,
    host,
    port,
    url,
    ownerPid: process.pid,
    startedAt: new Date().toISOString(),
  });
  let stopping: Promise<void> | undefined;
  return {
    url,
    host,
    port,
    pid,
    dataDir,
    servedDir: dataDir,
    owned: true,
    logFile,
    get logs() {
      return ring.snapshot();
    },
    stop() {
      stopping ??= (async () => {
        await terminate(child, exited);
        await removeServerInfo(dataDir, pid);
      })();
      return stopping;
    },
  };
}

async function terminate(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), DEFAULT_CHROMA_LIMITS.serverStopTimeoutMs);
  await exited;
  clearTimeout(timer);
}
