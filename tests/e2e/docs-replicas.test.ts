// Docs servers as replicas behind a load balancer: one real Chroma server holding a slice of the
// Mintlify corpus, two `atrium-docs mcp --http` processes over it, Debian's HAProxy in front with
// session affinity on Mcp-Session-Id, and the official MCP SDK client through HAProxy. Sessions
// spread over both replicas and stay on theirs; every answer equals GNU's on the same files; with
// six clients calling in a loop one replica is killed with SIGKILL: its sessions get an HTTP or
// MCP error within the call's time limit, never a wrong answer, a client that opens a new session
// is served by the other replica, and the other replica's sessions never notice. Loopback only,
// bounded in count and time, every process stopped by its PID.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChromaCorpus } from "../../packages/chromafs/test/oracle/chroma-corpus.ts";
import { type DocsReplicas, startDocsChroma, startDocsReplicas } from "../serving/docs-replicas.ts";
import { haproxyInstalled } from "../serving/haproxy.ts";
import { connectThroughBalancer, type ReplicaSession } from "../serving/replica-client.ts";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.ts";

/** Each call's bound: an answer, or the SDK's error, within this long (roomy: CI runs suites side by side). */
const CALL_TIMEOUT_MS = 10_000;
const LOAD_CLIENTS = 6;
/** Calls each load client makes at most; the load stops earlier, once the kill has been seen through (~14 s). */
const MAX_CALLS_PER_CLIENT = 2_000;

type Expected = { command: string; structured: { stdout: string; stderr: string; exitCode: number } };

/** The commands and their answers, from the files themselves and GNU grep on them. */
function expectedAnswers(dir: string): Expected[] {
  const gnu = (args: string[]) => {
    const run = spawnSync("grep", args, { cwd: dir, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`grep ${args.join(" ")}: ${run.stderr}`);
    return run.stdout;
  };
  const sortedPaths = (stdout: string) =>
    stdout
      .split("\n")
      .filter(Boolean)
      .map((path) => `/${path.replace(/^\.\//, "")}`)
      .sort()
      .map((path) => `${path}\n`)
      .join("");
  const ok = (stdout: string) => ({ stdout, stderr: "", exitCode: 0 });
  return [
    { command: "cat /quickstart.mdx", structured: ok(readFileSync(join(dir, "quickstart.mdx"), "utf8")) },
    { command: "grep -rl domain / | sort", structured: ok(sortedPaths(gnu(["-rl", "domain", "."]))) },
    {
      command: "grep -n font /customize/fonts.mdx",
      structured: ok(gnu(["-n", "font", "customize/fonts.mdx"])),
    },
    {
      command: "grep -c install /cli/install.mdx",
      structured: ok(gnu(["-c", "install", "cli/install.mdx"])),
    },
  ];
}

/**
 * What a call's failure was, as a host sees it: an HTTP status (HAProxy's, or the surviving
 * replica's 404 for a session it never had), an MCP error (the call's time limit, when the
 * replica died after its answer's event stream had begun), or the connection closed with no
 * answer at all (HAProxy closes the client's connection when the replica's vanished before
 * answering). Anything else is "unexpected".
 */
function errorKind(error: unknown): string {
  if (error instanceof StreamableHTTPError) return `HTTP ${error.code}`;
  if (error instanceof McpError) return `MCP ${error.code}`;
  const cause = (error as Error).cause as { code?: string } | undefined;
  if (error instanceof TypeError && cause?.code === "UND_ERR_SOCKET") return "connection closed";
  return `unexpected ${String(error)}`;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!haproxyInstalled())("atrium-docs mcp --http replicas behind HAProxy", () => {
  let docsDir: string | undefined;
  let chroma: ChromaCorpus | undefined;
  let topology: DocsReplicas | undefined;
  let expected: Expected[];

  beforeAll(async () => {
    docsDir = corpusCopy(SOME_PAGES);
    expected = expectedAnswers(docsDir);
    chroma = await startDocsChroma(docsDir);
    topology = await startDocsReplicas(chroma.server.url, 2);
  }, 120_000);

  afterAll(async () => {
    const pids = [...(topology?.pids() ?? []), ...(chroma?.server.pid ? [chroma.server.pid] : [])];
    try {
      await topology?.stop();
      await chroma?.close();
    } finally {
      removeDirs(docsDir);
    }
    // Nothing this suite started outlives it.
    expect(pids.filter(isAlive)).toEqual([]);
  }, 60_000);

  const connect = () => connectThroughBalancer(topology!.balancer.url, CALL_TIMEOUT_MS);

  it("spreads new sessions over both replicas, keeps each on its own, and answers exactly", async () => {
    const sessions = await Promise.all(Array.from({ length: 4 }, connect));
    try {
      expect(new Set(sessions.map((session) => session.replica))).toEqual(new Set(["r0", "r1"]));
      for (const session of sessions) {
        for (const { command, structured } of expected) {
          const answer = await session.bash(command, CALL_TIMEOUT_MS);
          expect({ command, isError: answer.isError, structured: answer.structured }).toEqual({
            command,
            isError: false,
            structured,
          });
        }
        // Stickiness: every request of the session went to the replica that created it.
        expect(session.answeredBy).toEqual([session.replica]);
      }
    } finally {
      await Promise.all(sessions.map((session) => session.close()));
    }
  }, 60_000);

  it("kill -9 of one replica under load: clean errors for its sessions, the other serves, 0 wrong answers", async () => {
    const killed = topology!.replicas[0]!;
    const tally = {
      right: 0,
      rightAfterKill: 0,
      wrong: [] as { command: string; got: unknown }[],
      errors: [] as { replica: string; kind: string; message: string; ms: number; afterKill: boolean }[],
      reconnectedTo: [] as string[],
    };
    let killedAt: number | undefined;
    let stop = false;
    const load = async (n: number) => {
      let session: ReplicaSession = await connect();
      const opened: ReplicaSession[] = [session];
      try {
        for (let call = n; call < n + MAX_CALLS_PER_CLIENT && !stop; call++) {
          const { command, structured } = expected[call % expected.length]!;
          const started = Date.now();
          try {
            const answer = await session.bash(command, CALL_TIMEOUT_MS);
            if (!answer.isError && JSON.stringify(answer.structured) === JSON.stringify(structured)) {
              tally.right++;
              if (killedAt !== undefined && started > killedAt) tally.rightAfterKill++;
            } else {
              tally.wrong.push({ command, got: answer });
            }
          } catch (error) {
            const kind = errorKind(error);
            tally.errors.push({
              replica: session.replica,
              kind,
              message: (error as Error).message,
              ms: Date.now() - started,
              afterKill: killedAt !== undefined,
            });
            // What an MCP host does when its session is gone: a new session, through the balancer.
            await session.close();
            session = await connect();
            opened.push(session);
            tally.reconnectedTo.push(session.replica);
          }
        }
      } finally {
        await Promise.all(opened.map((one) => one.close()));
      }
    };
    // Sessions with no call in flight at the kill: their next call shows what a session on a
    // dead replica gets once HAProxy has moved it (a 404 from a replica that never had it).
    const idle = await Promise.all(Array.from({ length: 4 }, connect));
    const clients = Array.from({ length: LOAD_CLIENTS }, (_, n) => load(n));
    try {
      await sleep(1_000);
      expect(tally.right).toBeGreaterThan(0);
      killedAt = Date.now();
      process.kill(killed.child.pid as number, "SIGKILL");
      await killed.exited;
      // Long enough for every session on the killed replica to have failed and reconnected,
      // and for HAProxy's health checks (500 ms, two in a row) to take the replica out.
      await sleep(CALL_TIMEOUT_MS + 3_000);
    } finally {
      stop = true;
      await Promise.all(clients);
    }

    expect(tally.wrong).toEqual([]);
    expect(tally.errors.length).toBeGreaterThan(0);
    for (const error of tally.errors) {
      // Only the killed replica's sessions saw an error, after the kill, each an HTTP or MCP
      // error within the call's bound (plus the time a connection attempt may take).
      expect(error).toMatchObject({ replica: "r0", afterKill: true });
      expect(error.kind).toMatch(/^(HTTP \d+|MCP -?\d+|connection closed)$/);
      expect(error.ms).toBeLessThan(CALL_TIMEOUT_MS + 1_000);
    }
    // Every new session went to the replica still up, and served right answers.
    expect(tally.reconnectedTo.length).toBe(tally.errors.length);
    expect(new Set(tally.reconnectedTo)).toEqual(new Set(["r1"]));
    expect(tally.rightAfterKill).toBeGreaterThan(0);

    try {
      expect(new Set(idle.map((session) => session.replica))).toEqual(new Set(["r0", "r1"]));
      for (const session of idle) {
        const { command, structured } = expected[0]!;
        const outcome = await session.bash(command, CALL_TIMEOUT_MS).then(
          (answer) => ({ isError: answer.isError, structured: answer.structured }),
          (error: unknown) => ({ error: errorKind(error), message: (error as Error).message }),
        );
        if (session.replica === "r1") expect(outcome).toEqual({ isError: false, structured });
        else {
          expect(outcome).toEqual({
            error: "HTTP 404",
            message: expect.stringContaining("Session not found; initialize a new one"),
          });
          expect(session.answeredBy).toEqual(["r0", "r1"]);
        }
      }
    } finally {
      await Promise.all(idle.map((session) => session.close()));
    }

    // A client that comes later is served by the survivor, exactly.
    const late = await connect();
    try {
      expect(late.replica).toBe("r1");
      const { command, structured } = expected[1]!;
      expect((await late.bash(command, CALL_TIMEOUT_MS)).structured).toEqual(structured);
    } finally {
      await late.close();
    }
    console.log(
      `docs replicas: ${tally.right} right answers (${tally.rightAfterKill} after the kill), 0 wrong, errors: ${JSON.stringify(
        tally.errors.map(({ kind, message, ms }) => ({ kind, message: message.slice(0, 120), ms })),
      )}`,
    );
  }, 90_000);
});
