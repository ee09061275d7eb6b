/**
 * Docs servers as replicas (the deployment guide's figures): calls per second of K concurrent MCP
 * sessions through HAProxy to 1 and to 2 `atrium-docs mcp --http` replicas over one Chroma server
 * holding the Mintlify corpus. Every part is a real process on loopback; the clients are the
 * official MCP SDK's, in this process. The figure is the median of timed runs; every answer is
 * checked against the first one for its command. On a 2-core machine the replicas, their worker
 * threads, Chroma, HAProxy and the clients share the same two cores, so a second replica adds no
 * CPU: the 2-replica figure says what the balancing costs or gains here, not what a second
 * machine would add.
 */
import { availableParallelism } from "node:os";
import { type BenchRow, compared, writeBenchResults } from "@atrium/bench";
import { MINTLIFY_CORPUS } from "../e2e/demo-corpus.ts";
import { startDocsChroma, startDocsReplicas } from "../serving/docs-replicas.ts";
import { haproxyInstalled } from "../serving/haproxy.ts";
import { measureThroughput, type Throughput } from "../serving/replica-load.ts";

/** What an agent types over docs: recursive greps, whole pages, listings, a pipeline. */
const COMMANDS = [
  "grep -rl webhook / | wc -l",
  "cat /quickstart.mdx",
  "ls /deploy",
  "grep -rn Kubernetes /deploy | head -5",
  "head -30 /api-playground/overview.mdx",
  "find /es -name '*.mdx' | wc -l",
];
const CLIENTS = 8;
const RUNS = 3;
const RUN_MS = 8_000;
const CALL_TIMEOUT_MS = 60_000;

if (!haproxyInstalled()) {
  throw new Error("docs-replicas bench: haproxy is not installed (bash .ci/setup.sh bench installs it)");
}

const chroma = await startDocsChroma(MINTLIFY_CORPUS);
const figures = new Map<number, Throughput>();
try {
  for (const replicas of [1, 2]) {
    const topology = await startDocsReplicas(chroma.server.url, replicas);
    try {
      figures.set(
        replicas,
        await measureThroughput({
          url: topology.balancer.url,
          commands: COMMANDS,
          clients: CLIENTS,
          runs: RUNS,
          runMs: RUN_MS,
          callTimeoutMs: CALL_TIMEOUT_MS,
          pids: [...topology.pids(), chroma.server.pid],
        }),
      );
    } finally {
      await topology.stop();
    }
  }
} finally {
  await chroma.close();
}

const one = figures.get(1)!;
const two = figures.get(2)!;
const rows: BenchRow[] = [
  {
    metric: `docs_replicas.calls_per_s.1_replica.${CLIENTS}_clients`,
    value: one.callsPerSecond,
    unit: "calls/s",
  },
  compared(
    `docs_replicas.calls_per_s.2_replicas.${CLIENTS}_clients`,
    two.callsPerSecond,
    "calls/s",
    `docs_replicas.calls_per_s.1_replica.${CLIENTS}_clients`,
    one.callsPerSecond,
  ),
  { metric: "docs_replicas.median_call_ms.1_replica", value: one.medianCallMs, unit: "ms" },
  { metric: "docs_replicas.median_call_ms.2_replicas", value: two.medianCallMs, unit: "ms" },
  // Where the cores went: a figure near the machine's core count with little idle means the
  // machine, not the number of replicas, was the limit.
  { metric: "docs_replicas.cores_used.1_replica", value: one.coresUsed, unit: "cores" },
  { metric: "docs_replicas.cores_used.2_replicas", value: two.coresUsed, unit: "cores" },
  { metric: "docs_replicas.cores_idle.1_replica", value: one.coresIdle, unit: "cores" },
  { metric: "docs_replicas.cores_idle.2_replicas", value: two.coresIdle, unit: "cores" },
  { metric: "docs_replicas.cores", value: availableParallelism(), unit: "cores" },
];
console.log(
  `docs replicas: sessions by replica with 2 replicas: ${JSON.stringify(two.sessionsByReplica)}; ` +
    `${RUNS} runs of ${RUN_MS / 1000} s each, ${CLIENTS} clients, ${availableParallelism()} cores shared by every process`,
);
writeBenchResults("docs-replicas", rows);
