// Debian's HAProxy (installed by `.ci/setup.sh test` and `bench`) in front of several MCP servers
// over streamable HTTP, as a deployment runs them: loopback only, a child of this process that
// is stopped by its PID. A session sticks to the replica that created it through the
// Mcp-Session-Id header (the server names the session in its initialize response; the client
// sends it on every later request), which is all the state an `atrium-docs mcp --http` replica
// keeps. Shared by tests/e2e/docs-replicas.test.ts and the bench's 1 vs 2 replicas.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The response header HAProxy adds naming the replica that answered (its `server` name). */
export const REPLICA_HEADER = "x-atrium-replica";

export interface HaproxyOptions {
  /** The replicas' base URLs, e.g. http://127.0.0.1:41234 (a path is ignored); named r0, r1, … */
  replicas: readonly string[];
  /** The health check path each replica answers 200 on while it can serve (default /health). */
  healthPath?: string;
  /** How often a replica is checked; two failed checks in a row take it out (default 500 ms). */
  checkIntervalMs?: number;
  /** Longest a call may take at a replica before HAProxy answers 504 (default 60 s). */
  serverTimeoutMs?: number;
  /** How long HAProxy may take to listen (default 10 s). */
  startTimeoutMs?: number;
}

export interface RunningHaproxy {
  /** The MCP endpoint through the load balancer, e.g. http://127.0.0.1:40000/mcp. */
  readonly url: string;
  readonly pid: number;
  /** The configuration it runs, as written. */
  readonly config: string;
  /** Everything it printed on stderr so far (its alerts and warnings; the replicas' health changes). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
  stop(): Promise<void>;
}

/** Whether Debian's haproxy is on PATH, so a suite can say why it skips. */
export function haproxyInstalled(): boolean {
  return spawnSync("haproxy", ["-v"], { stdio: "ignore" }).status === 0;
}

/**
 * The configuration: round-robin for new sessions, and stickiness on Mcp-Session-Id (stored from
 * the replica's response, matched on the client's request). A replica whose health check fails
 * twice is out: a session stuck to it is sent to another replica, which does not know the session
 * and answers 404 ("initialize a new one"), as the MCP spec says a client should expect; new
 * sessions go to the replicas still up. A call in flight on a replica that dies gets HAProxy's
 * 502. `retries` covers only connections refused, so no request is ever sent twice.
 */
export function haproxyConfig(options: HaproxyOptions & { port: number }): string {
  const interval = options.checkIntervalMs ?? 500;
  const servers = options.replicas.map((replica, index) => {
    const { hostname, port } = new URL(replica);
    return `  server r${index} ${hostname}:${port} check inter ${interval}ms fall 2 rise 2`;
  });
  return [
    "global",
    "  maxconn 4096",
    // Alerts and health changes go to stderr, which stop() keeps for a failing test to show.
    "  log stderr format raw local0 notice",
    "",
    "defaults",
    "  mode http",
    "  log global",
    "  timeout connect 2s",
    "  timeout client 5m",
    `  timeout server ${options.serverTimeoutMs ?? 60_000}ms`,
    "  timeout check 2s",
    "  retries 2",
    // A request for a session whose replica is down is load-balanced instead of refused.
    "  option redispatch",
    "",
    "frontend mcp",
    `  bind 127.0.0.1:${options.port}`,
    "  default_backend replicas",
    "",
    "backend replicas",
    "  balance roundrobin",
    // Session ids are UUIDs (36 characters); entries live as long as an idle session may.
    "  stick-table type string len 64 size 100k expire 30m",
    "  stick store-response res.hdr(Mcp-Session-Id)",
    "  stick match req.hdr(Mcp-Session-Id)",
    // The replicas refuse a Host that is not loopback (DNS rebinding), so the check names one.
    "  option httpchk",
    `  http-check send meth GET uri ${options.healthPath ?? "/health"} ver HTTP/1.1 hdr Host 127.0.0.1`,
    "  http-check expect status 200",
    `  http-response set-header ${REPLICA_HEADER} %[srv_name]`,
    ...servers,
    "",
  ].join("\n");
}

/** Starts `haproxy -db -f <config>` on a free loopback port; resolves once it accepts connections. */
export async function startHaproxy(options: HaproxyOptions): Promise<RunningHaproxy> {
  if (options.replicas.length === 0) throw new Error("startHaproxy: no replicas to balance");
  const dir = mkdtempSync(join(tmpdir(), "atrium-haproxy-"));
  const port = await freePort();
  const config = haproxyConfig({ ...options, port });
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, config);
  // -db: stay in the foreground, so the child's PID is HAProxy's own and stop() ends it.
  const child = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  let spawnFailure: Error | undefined;
  child.once("error", (error) => {
    spawnFailure = error;
  });
  const stop = async () => {
    try {
      await stopChild(child, exited);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    await waitForListen(port, options.startTimeoutMs ?? 10_000, () => {
      if (spawnFailure) {
        throw new Error(`haproxy could not start: ${spawnFailure.message} (apt-get install haproxy)`);
      }
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`haproxy exited (${child.exitCode ?? child.signalCode}) before listening: ${stderr}`);
      }
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pid: child.pid as number,
    config,
    stderr: () => stderr,
    stop,
  };
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  // A spawn that failed has no PID and no exit to wait for.
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  process.kill(child.pid, "SIGTERM");
  // Unreferenced, so a prompt exit leaves no timer holding the process open.
  const gone = await Promise.race([exited.then(() => true), sleep(5_000, false, { ref: false })]);
  if (!gone) {
    process.kill(child.pid, "SIGKILL");
    await exited;
  }
}

/** Polls until something accepts a TCP connection on 127.0.0.1:port, checking `alive` between tries. */
async function waitForListen(port: number, timeoutMs: number, alive: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    alive();
    if (await accepts(port)) {
      // A HAProxy that lost the port to another process exits at once: say so, not "listening".
      await sleep(50);
      alive();
      return;
    }
    if (Date.now() > deadline)
      throw new Error(`haproxy did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await sleep(25);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A port the OS just handed out and released; HAProxy binds it at once (a start that loses a race fails loudly). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
