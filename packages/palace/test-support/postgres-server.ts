// A real, throwaway PostgreSQL server for tests and benchmarks (Debian's `postgresql`, installed by
// `.ci/setup.sh test` and `bench`): a cluster of its own in a temporary directory, loopback only,
// `postgres` itself a child of this process that is stopped by its PID. Never Debian's packaged
// cluster (/etc/postgresql, pg_ctlcluster, the service): only the binaries are used. Shared by the palace's PostgreSQL store tests (packages/palace), the root
// suites that run two `atrium-palace mcp --http` servers on one database and restart it under
// load (tests/), and the benches. Test code only: package.json's "files" does not ship it.
//
// PostgreSQL refuses to run as root: as root, initdb and postgres run as Debian's `postgres` system
// user (through `setpriv`, which execs, so the PID we hold is the server's own; `runuser` would
// stay in between as a parent and leave the server orphaned on SIGKILL), and the temporary
// directory is that user's, mode 0700. Otherwise they run as the current user.
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import pg from "pg";

/** The superuser every server has (trust authentication on loopback: no password). */
export const POSTGRES_USER = "atrium";

/** What a suite says when it skips, and what a start says when it cannot run. */
export const POSTGRES_MISSING =
  "needs PostgreSQL's server (initdb and postgres in /usr/lib/postgresql/<N>/bin): apt-get install postgresql, or bash .ci/setup.sh test";

/** Names a directory holding another build's initdb and postgres instead of Debian's. */
const BIN_DIR_VARIABLE = "ATRIUM_POSTGRES_BIN";
/** Every temporary directory's name starts with this, then the PID of the process that owns it. */
const DIR_PREFIX = "atrium-postgres-";

export interface PostgresOptions {
  /** The database the URL names, created at start (default "atrium"). */
  database?: string;
  /**
   * fsync on (default off, for speed). Off, committed data survives a kill of the server (SIGKILL
   * of every PostgreSQL process, as kill() does) but not a crash of the machine: each commit's WAL
   * is written to the kernel before the commit returns, and the kernel keeps it once the process
   * is gone; only its flush to the disk is skipped. That is why synchronous_commit stays on
   * (off, a commit returns before its WAL leaves the server's memory, and a SIGKILL loses the last
   * few hundred milliseconds of commits) and full_page_writes too (a SIGKILL between the pages of
   * one 8 kB write can leave it torn). Turn fsync on to measure what a deployment pays for it.
   */
  fsync?: boolean;
  /** Further server settings, each passed as `-c name=value` (e.g. { max_connections: 200 }). */
  settings?: Readonly<Record<string, string | number>>;
  /** How long a start may take until the server accepts connections (default 30 s). */
  startTimeoutMs?: number;
}

export interface RunningPostgres {
  /** postgres://atrium@127.0.0.1:<port>/<database> */
  readonly url: string;
  readonly port: number;
  /** The server process's PID (the postmaster); a new one after each start(). */
  readonly pid: number;
  /** The cluster's data directory (inside the temporary directory stop() removes). */
  readonly dataDir: string;
  /** Whether the server process is up (it may still be starting). */
  running(): boolean;
  /** Everything the server printed (its log: start, shutdown, errors), over all its starts. */
  log(): string;
  /** Fast shutdown (SIGINT: open transactions roll back, sessions end), SIGKILL after 5 s; keeps the data for start(). */
  shutdown(): Promise<void>;
  /** SIGKILL of the server and every process it forked, as a crash would; keeps the data for start(). */
  kill(): Promise<void>;
  /** Starts the server again on the same data and port, after shutdown() or kill(); resolves once it accepts connections. */
  start(): Promise<void>;
  /** shutdown(), then removes the temporary directory; final. Resolves once the process is gone. */
  stop(): Promise<void>;
}

/** The highest /usr/lib/postgresql/<N>/bin holding initdb and postgres (Debian puts neither on PATH). */
export function postgresBinDir(): string | undefined {
  const chosen = process.env[BIN_DIR_VARIABLE];
  if (chosen) return hasServer(chosen) ? chosen : undefined;
  const root = "/usr/lib/postgresql";
  let versions: string[];
  try {
    versions = readdirSync(root).filter((name) => /^\d+(\.\d+)?$/.test(name));
  } catch {
    return undefined;
  }
  return versions
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(root, version, "bin"))
    .find(hasServer);
}

/** Whether a server can be started here, so a suite can say why it skips. */
export function postgresInstalled(): boolean {
  return postgresBinDir() !== undefined;
}

/**
 * For suites: a started server, or undefined when PostgreSQL is not installed so the suite can
 * skip with POSTGRES_MISSING. Under CI=true a missing server is an error instead: CI installs it
 * through `bash .ci/setup.sh test`, and a suite that silently skips there tests nothing.
 */
export async function startPostgresIfInstalled(
  options?: PostgresOptions,
): Promise<RunningPostgres | undefined> {
  if (!postgresInstalled() && process.env.CI !== "true") return undefined;
  return startPostgres(options);
}

/**
 * A fresh database on a running server, for one suite's own tables: `name`, or atrium_<n>_<pid>
 * (unique in this process and beside other processes' on a shared server). Resolves to its URL.
 */
export async function freshDatabase(server: RunningPostgres, name?: string): Promise<string> {
  const database = name ?? `atrium_${++state.databaseCount}_${process.pid}`;
  await createDatabase(server.port, database);
  return databaseUrl(server.port, database);
}

/**
 * initdb (once per process: later servers copy that cluster, ~0.15 s instead of ~0.9 s), then
 * `postgres` on a free loopback port; resolves once it accepts connections.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<RunningPostgres> {
  const bin = postgresBinDir();
  if (!bin) {
    throw new Error(
      process.env.CI === "true"
        ? `${POSTGRES_MISSING} (under CI=true a missing server fails the suite instead of skipping it)`
        : POSTGRES_MISSING,
    );
  }
  const database = options.database ?? "atrium";
  checkName(database);
  const owner = serverUser();
  installExitHooks();
  const dir = ownDir("server", owner);
  const dataDir = join(dir, "data");
  const server: ServerState = { dir, dataDir, child: undefined, exited: Promise.resolve(), log: "" };
  state.live.add(server);
  let port = 0;
  const stop = async () => {
    try {
      await shutdownServer(server);
    } finally {
      state.live.delete(server);
      removeDir(server);
    }
  };
  try {
    await copyDir(join(await template(bin, owner), "data"), dataDir);
    // A port the OS just handed out may be taken again before postgres binds it: then another.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await boot(server, bin, owner, port, options);
        break;
      } catch (error) {
        const taken = !running(server) && server.log.includes("Address already in use");
        if (!taken || attempt === 3) throw error;
      }
    }
    if (database !== "postgres") await createDatabase(port, database);
  } catch (error) {
    await stop();
    throw error;
  }
  let stopped = false;
  return {
    url: databaseUrl(port, database),
    port,
    get pid() {
      return server.child?.pid as number;
    },
    dataDir,
    running: () => running(server),
    log: () => server.log,
    shutdown: () => shutdownServer(server),
    kill: () => killServer(server),
    start: async () => {
      if (stopped)
        throw new Error(`postgres on 127.0.0.1:${port}: start() after stop() (its directory is gone)`);
      if (running(server))
        throw new Error(`postgres on 127.0.0.1:${port} is already running (pid ${server.child?.pid})`);
      await boot(server, bin, owner, port, options);
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await stop();
    },
  };
}

interface ServerState {
  /** The temporary directory: the data directory and the Unix socket. */
  dir: string;
  dataDir: string;
  /** The current (or last) `postgres` process. */
  child: ChildProcess | undefined;
  /** Resolves once the current process has exited. */
  exited: Promise<void>;
  log: string;
}

/** The user initdb and postgres run as: the `postgres` system user under root, else none (ourselves). */
type ServerUser = { uid: number; gid: number } | undefined;

/**
 * The process's servers and template, kept on globalThis: a test runner may load this module once
 * per test file in one process, and they all share one template and one set of exit hooks.
 */
interface ProcessState {
  /** Servers not yet stopped, for the exit hooks. */
  live: Set<ServerState>;
  databaseCount: number;
  /** The initdb'd cluster's directory, once initdb has run (or while it runs). */
  template: Promise<string> | undefined;
  templateDir: string | undefined;
  /** Whether the exit hooks are installed and abandoned directories swept (at the first start). */
  hooked: boolean;
}
const STATE_KEY = Symbol.for("atrium.postgres-server");
const holder = globalThis as { [STATE_KEY]?: ProcessState };
holder[STATE_KEY] ??= {
  live: new Set(),
  databaseCount: 0,
  template: undefined,
  templateDir: undefined,
  hooked: false,
};
const state: ProcessState = holder[STATE_KEY];

/**
 * A run that ends without stop() (a failed test, a forgotten server) leaves no postgres and no
 * directory behind: on exit, and on the signals that end a process without an exit (vitest ends
 * its workers with SIGTERM; a terminal's Ctrl-C is SIGINT). A run killed outright (SIGKILL) cannot
 * clean up: its servers die with it (setpriv's parent-death signal), and the next run removes its
 * directories (removeAbandonedDirs).
 */
function installExitHooks(): void {
  if (state.hooked) return;
  state.hooked = true;
  removeAbandonedDirs();
  const cleanUp = () => {
    for (const server of state.live) {
      if (running(server)) killTree(server.child!.pid!);
      removeDir(server);
    }
    state.live.clear();
    if (state.templateDir) rmSync(state.templateDir, { recursive: true, force: true, maxRetries: 5 });
    state.templateDir = undefined;
  };
  process.on("exit", cleanUp);
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    // Once: the listener is gone when it runs, so unless another one listens the signal raised
    // again does what it would have done without this one, and ends the process.
    process.once(signal, () => {
      cleanUp();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

function hasServer(dir: string): boolean {
  return existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres"));
}

function databaseUrl(port: number, database: string): string {
  return `postgres://${POSTGRES_USER}@127.0.0.1:${port}/${database}`;
}

/** Names are plain identifiers, so no quoting can go wrong in CREATE DATABASE or a URL. */
function checkName(database: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) {
    throw new Error(`postgres: database name "${database}" must match [a-z_][a-z0-9_]{0,62}`);
  }
}

async function createDatabase(port: number, database: string): Promise<void> {
  checkName(database);
  const client = new pg.Client({ host: "127.0.0.1", port, user: POSTGRES_USER, database: "postgres" });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${database}`);
  } finally {
    await client.end();
  }
}

function serverUser(): ServerUser {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const uid = id("-u");
  const gid = id("-g");
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      "postgres: PostgreSQL refuses to run as root, and there is no `postgres` user to run it as (apt-get install postgresql creates one)",
    );
  }
  if (!setprivPath())
    throw new Error(
      "postgres: running as root needs setpriv to switch to the postgres user (apt-get install util-linux)",
    );
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function setprivPath(): string | undefined {
  return [...(process.env.PATH ?? "").split(delimiter), "/usr/bin"]
    .map((dir) => join(dir, "setpriv"))
    .find((path) => path.startsWith("/") && existsSync(path));
}

/**
 * The command that runs `bin` with `args` as the server's user, and with SIGKILL as its
 * parent-death signal so it dies with this process; both through setpriv, which execs (the PID
 * stays the server's). Without setpriv (not root) the server is run directly.
 */
function asServerUser(owner: ServerUser, bin: string, args: string[]): [string, string[]] {
  const setpriv = setprivPath();
  if (!setpriv) return [bin, args];
  const user = owner ? [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--clear-groups"] : [];
  return [setpriv, [...user, "--pdeathsig=KILL", "--", bin, ...args]];
}

/** A new temporary directory, the server user's and only theirs (PostgreSQL insists on 0700). */
function ownDir(kind: string, owner: ServerUser): string {
  const dir = mkdtempSync(join(tmpdir(), `${DIR_PREFIX}${process.pid}-${kind}-`));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

/** The process's one initdb'd cluster, which every server copies. */
function template(bin: string, owner: ServerUser): Promise<string> {
  state.template ??= (async () => {
    const dir = ownDir("template", owner);
    state.templateDir = dir;
    const [command, args] = asServerUser(owner, join(bin, "initdb"), [
      ...["-D", join(dir, "data"), "-U", POSTGRES_USER, "--auth=trust"],
      // Bytewise text ordering, as SQLite's; UTF-8 whatever the environment's locale.
      ...["-E", "UTF8", "--locale=C"],
      // Throwaway: no fsync of the new files.
      "--no-sync",
    ]);
    try {
      await promisify(execFile)(command, args, { env: serverEnv(), maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      state.template = undefined;
      state.templateDir = undefined;
      rmSync(dir, { recursive: true, force: true });
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`postgres: initdb failed: ${(error as Error).message}\n${stdout ?? ""}${stderr ?? ""}`);
    }
    return dir;
  })();
  return state.template;
}

/** `cp -a`: modes and owner kept (the server user's, 0700). */
async function copyDir(from: string, to: string): Promise<void> {
  await promisify(execFile)("cp", ["-a", from, to]);
}

/** Messages in English, whatever the environment's locale (the log is read for "Address already in use"). */
function serverEnv(): NodeJS.ProcessEnv {
  return { ...process.env, LC_ALL: "C" };
}

/** Starts `postgres` on the server's data directory; resolves once it accepts connections. */
async function boot(
  server: ServerState,
  bin: string,
  owner: ServerUser,
  port: number,
  options: PostgresOptions,
): Promise<void> {
  const settings: Record<string, string | number> = {
    listen_addresses: "127.0.0.1",
    port,
    unix_socket_directories: server.dir,
    // Dynamic shared memory as files in the data directory, not /dev/shm: a killed server's
    // segments are removed with the directory instead of outliving it.
    dynamic_shared_memory_type: "mmap",
    ...(options.fsync ? {} : { fsync: "off" }),
    ...options.settings,
  };
  const args = [
    "-D",
    server.dataDir,
    ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ];
  const [command, commandArgs] = asServerUser(owner, join(bin, "postgres"), args);
  // Run directly, not through pg_ctl (which daemonizes): the child's PID is the server's.
  const child = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "pipe"], env: serverEnv() });
  server.child = child;
  server.exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  let spawnFailure: Error | undefined;
  child.once("error", (error) => {
    spawnFailure = error;
  });
  const append = (chunk: string) => {
    server.log += chunk;
  };
  child.stdout!.setEncoding("utf8").on("data", append);
  child.stderr!.setEncoding("utf8").on("data", append);
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (spawnFailure) throw new Error(`postgres could not start: ${spawnFailure.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `postgres exited (${child.exitCode ?? child.signalCode}) before accepting connections on 127.0.0.1:${port}; its log:\n${server.log}`,
      );
    }
    if (await accepts(port)) return;
    if (Date.now() > deadline) {
      await shutdownServer(server);
      throw new Error(
        `postgres did not accept connections on 127.0.0.1:${port} within ${timeoutMs} ms; its log:\n${server.log}`,
      );
    }
    await sleep(20);
  }
}

/** Whether the server answers a query (a server still starting refuses with "starting up"). */
async function accepts(port: number): Promise<boolean> {
  const client = new pg.Client({
    host: "127.0.0.1",
    port,
    user: POSTGRES_USER,
    database: "postgres",
    connectionTimeoutMillis: 2_000,
  });
  // An error after connect() failed is the same failure again; it must not go unhandled.
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function running(server: ServerState): boolean {
  const child = server.child;
  return (
    child !== undefined && child.exitCode === null && child.signalCode === null && child.pid !== undefined
  );
}

async function shutdownServer(server: ServerState): Promise<void> {
  if (!running(server)) return;
  const pid = server.child!.pid!;
  // SIGINT is PostgreSQL's fast shutdown; it exits once every process it forked has.
  try {
    process.kill(pid, "SIGINT");
  } catch {
    // Exited a moment ago; its exit event is on its way.
  }
  // Unreferenced, so a prompt exit leaves no timer holding the process open.
  const gone = await Promise.race([server.exited.then(() => true), sleep(5_000, false, { ref: false })]);
  if (!gone) await killServer(server);
}

async function killServer(server: ServerState): Promise<void> {
  if (!running(server)) return;
  const pids = killTree(server.child!.pid!);
  await server.exited;
  // The forked processes are not ours to wait for: until they are gone the old shared memory is
  // in use, and a start() on the same data directory would refuse to run.
  const deadline = Date.now() + 5_000;
  while (pids.some(alive)) {
    if (Date.now() > deadline) {
      throw new Error(`postgres: processes ${pids.filter(alive).join(", ")} still alive 5 s after SIGKILL`);
    }
    await sleep(10);
  }
}

/**
 * SIGKILL to the server and every process it forked (its backends set up sessions of their own,
 * so a process group would miss them): stopped first, so it forks no more while they are listed.
 * Returns their PIDs.
 */
function killTree(pid: number): number[] {
  const signal = (each: number, name: NodeJS.Signals) => {
    try {
      process.kill(each, name);
    } catch {
      // Gone already.
    }
  };
  signal(pid, "SIGSTOP");
  const pids = [pid, ...childrenOf(pid)];
  for (const each of pids) signal(each, "SIGKILL");
  return pids;
}

function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat?.ppid === parent) children.push(Number(name));
  }
  return children;
}

/** A process's state and parent from /proc/<pid>/stat (after the command, which may hold spaces). */
function procStat(pid: number): { state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: state ?? "", ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Alive: it exists and has not exited (a zombie waiting for its parent to reap it is gone). */
function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== "Z";
}

/**
 * Removes a server's directory; after a kill, first the System V segment its postmaster.pid names
 * (PostgreSQL's interlock, which outlives a killed server; a start() would have reused it).
 */
function removeDir(server: ServerState): void {
  removeInterlock(server.dataDir);
  // Retried: a server killed a moment ago may still be writing in it.
  rmSync(server.dir, { recursive: true, force: true, maxRetries: 5 });
}

function removeInterlock(dataDir: string): void {
  let lines: string[];
  try {
    lines = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n");
  } catch {
    return; // A clean shutdown removes the file and the segment.
  }
  const key = lines[6]?.trim().split(/\s+/)[0];
  if (key && /^\d+$/.test(key) && key !== "0") spawnSync("ipcrm", ["-M", key], { stdio: "ignore" });
}

/**
 * The directories of runs killed before their exit hooks ran (their owner's PID is gone, and so
 * is the server their postmaster.pid names); once per process, at its first start.
 */
function removeAbandonedDirs(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  const ours = new RegExp(`^${DIR_PREFIX}(\\d+)-`);
  for (const name of names) {
    const owner = ours.exec(name);
    if (!owner || Number(owner[1]) === process.pid || alive(Number(owner[1]))) continue;
    const dir = join(tmpdir(), name);
    const dataDir = join(dir, "data");
    let serverPid: number | undefined;
    try {
      serverPid = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    } catch {
      // No server ever started there, or it shut down cleanly.
    }
    if (serverPid && alive(serverPid)) continue;
    removeInterlock(dataDir);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A port the OS just handed out and released (a start that loses it to another process tries another). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
