import { mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { errorMessage } from "@atrium/spec";
import { ChromaStartError } from "../errors.js";
import { isChromaAlive } from "../heartbeat.js";
import { type ChromaLimits, resolveChromaLimits } from "../limits.js";
import { findFreePort } from "./free-port.js";
import { LogRing } from "./log-ring.js";
import { type DataDirSnapshot, isWritableDirectory, snapshotDataDir } from "./read-only-snapshot.js";
import { launchServerChild, PortTakenError, type ServerChild } from "./server-child.js";
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
import { type ChromaServerEvent, type ChromaServerHealth, ServerSupervisor } from "./server-supervisor.js";

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
  /**
   * Restart the server when it exits unexpectedly (default true; see `ServerSupervisor`). Only
   * the owner supervises; a reuser follows the data dir's record (`refresh()`).
   */
  supervise?: boolean;
  /** Overrides of the restart limits (`serverRestart*` of `ChromaLimits`), checked like any limit. */
  restartLimits?: Partial<
    Pick<
      ChromaLimits,
      "maxServerRestarts" | "serverRestartWindowMs" | "minRestartBackoffMs" | "maxRestartBackoffMs"
    >
  >;
}

/** `await using server = await startChromaServer(...)` stops it (or lets go of it) at the end of the block. */
export interface ChromaServer extends AsyncDisposable {
  /** Where the server answers now: a restart that found its port taken moves it. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** PID of the server process (a restart changes it). */
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
  /** Up, restarting or down, restarts so far, the last error. */
  health(): ChromaServerHealth;
  /**
   * Looks again: a reuser re-reads the data dir's record (the owner may have restarted the
   * server elsewhere) and checks the heartbeat; the owner, which supervises, just answers.
   */
  refresh(): Promise<ChromaServerHealth>;
  /** Exits, restarts and giving up, as they happen (the owner's supervisor only). */
  onEvent(listener: (event: ChromaServerEvent) => void): () => void;
  /** Stops the server (owner) or just lets go of it (reuser). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the Chroma server that ships in the `chromadb` package on a data directory, or reuses
 * the one already running there, and resolves once it answers its heartbeat.
 */
export async function startChromaServer(options: StartChromaServerOptions): Promise<ChromaServer> {
  // A bad option is the caller's ConfigError, checked before any directory or process is touched.
  resolveChromaLimits({ serverStartTimeoutMs: options.startTimeoutMs, ...options.restartLimits });
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
    const stop = async () => {
      await server.stop();
      await snapshot.remove();
    };
    return {
      get url() {
        return server.url;
      },
      host: server.host,
      get port() {
        return server.port;
      },
      get pid() {
        return server.pid;
      },
      dataDir,
      servedDir: server.servedDir,
      owned: server.owned,
      logFile: server.logFile,
      get logs() {
        return server.logs;
      },
      health: () => server.health(),
      refresh: () => server.refresh(),
      onEvent: (listener) => server.onEvent(listener),
      stop,
      [Symbol.asyncDispose]: () => stop(),
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

/**
 * A server another process (or an earlier call) owns. It does not supervise; `refresh()`
 * re-reads the record, which the owner rewrites when it restarts the server elsewhere.
 */
function reusedServer(dataDir: string, info: ServerInfo): ChromaServer {
  let current = info;
  let health: ChromaServerHealth = {
    state: "up",
    url: info.url,
    pid: info.pid,
    restarts: 0,
    since: new Date().toISOString(),
  };
  const settle = (state: ChromaServerHealth["state"], lastError?: string) => {
    if (state !== health.state || current.pid !== health.pid || current.url !== health.url) {
      health = { ...health, state, url: current.url, pid: current.pid, since: new Date().toISOString() };
      if (state === "up" && current.pid !== info.pid) health.restarts++;
    }
    health = lastError === undefined ? health : { ...health, lastError };
    return health;
  };
  return {
    get url() {
      return current.url;
    },
    host: info.host,
    get port() {
      return current.port;
    },
    get pid() {
      return current.pid;
    },
    dataDir,
    servedDir: dataDir,
    owned: false,
    logFile: join(dataDir, SERVER_LOG_FILE),
    logs: [],
    health: () => ({ ...health }),
    async refresh() {
      const recorded = await readServerInfo(dataDir);
      if (recorded) current = recorded;
      if (recorded && isProcessAlive(recorded.pid) && (await isChromaAlive(recorded.url)))
        return settle("up");
      return settle(
        recorded ? "restarting" : "down",
        recorded
          ? `no answer from the Chroma server at ${recorded.url} (pid ${recorded.pid}); its owner, process ${recorded.ownerPid}, restarts it`
          : `no Chroma server is recorded for ${dataDir} any more: its owner stopped it`,
      );
    },
    onEvent: () => () => {},
    stop: async () => {},
    [Symbol.asyncDispose]: async () => {},
  };
}

async function spawnServer(
  dataDir: string,
  host: string,
  options: StartChromaServerOptions,
): Promise<ChromaServer> {
  const limits = resolveChromaLimits({
    serverStartTimeoutMs: options.startTimeoutMs,
    ...options.restartLimits,
  });
  const ring = new LogRing();
  const launch = async (wanted: number | undefined): Promise<ServerChild> => {
    const attempts = wanted === undefined ? limits.maxPortAttempts : 1;
    let lastError: ChromaStartError | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      const port = wanted ?? (await findFreePort(host));
      try {
        return await launchServerChild(dataDir, host, port, limits.serverStartTimeoutMs, ring);
      } catch (error) {
        if (!(error instanceof PortTakenError) || wanted !== undefined) throw error;
        lastError = error.startError;
      }
    }
    throw lastError;
  };
  let first: ServerChild;
  try {
    first = await launch(options.port);
  } catch (error) {
    throw error instanceof PortTakenError ? error.startError : error;
  }
  await writeServerInfo(dataDir, {
    pid: first.pid,
    host,
    port: first.port,
    url: first.url,
    ownerPid: process.pid,
    startedAt: new Date().toISOString(),
  });
  const supervisor = new ServerSupervisor(dataDir, first, limits, launch, options.supervise !== false);
  return {
    get url() {
      return supervisor.url;
    },
    host,
    get port() {
      return supervisor.port;
    },
    get pid() {
      return supervisor.pid;
    },
    dataDir,
    servedDir: dataDir,
    owned: true,
    logFile: join(dataDir, SERVER_LOG_FILE),
    get logs() {
      return ring.snapshot();
    },
    health: () => supervisor.health(),
    refresh: async () => supervisor.health(),
    onEvent: (listener) => supervisor.onEvent(listener),
    stop: () => supervisor.stop(),
    [Symbol.asyncDispose]: () => supervisor.stop(),
  };
}
