/**
 * Serving figures of issue 11: a real `serveDocsMcpHttp` docs server (no auth, loopback, its
 * sessions on the worker pool) driven by real MCP SDK clients over loopback. Throughput and p99
 * of a fixed request mix at several session counts, and the p99 of light commands in one session
 * while another runs a heavy command over and over, beside the same light commands alone.
 */

import type { BenchRow } from "@atrium/bench";
import { compared } from "@atrium/bench";
import { McpClient } from "@atrium/mcp";
import type { DocStore } from "../src/doc-store/doc-store.js";
import { serveDocsMcpHttp } from "../src/mcp/docs-mcp-server.js";
import type { SessionPoolLimits } from "../src/session-pool/session-worker-pool.js";

export interface McpHttpLoadOptions {
  store: DocStore;
  /** Concurrent sessions of the throughput runs (default 8 and 32). */
  sessionCounts?: readonly number[];
  /** Requests of each throughput run, shared among its sessions (default 2,000). */
  requests?: number;
  /** Light requests timed in each light-command run (default 300). */
  lightRequests?: number;
  /** Where the server runs sessions (default: its worker pool), and the pool's limits. */
  sessions?: "workers" | "in-process";
  poolLimits?: Partial<SessionPoolLimits>;
}

/** The throughput mix: every session cycles through it, each from its own starting point. */
const MIX = [
  "grep -rl webhook /",
  "cat /quickstart.mdx",
  "ls /zh",
  "grep -rl Kubernetes /deploy",
  "cat /api-playground/overview.mdx | head -40",
  "ls -R /ai | head -20",
];
const LIGHT = ["cat /quickstart.mdx | head -20", "ls /zh", "cat /zh/index.mdx | wc -l"];
/**
 * The issue's heavy command: every page read, sorted, counted, sorted again. With `pipefail`, so
 * that a failing stage fails the run (a `sort` that overflowed its stack went unseen behind
 * `head`'s status 0).
 */
const HEAVY = "set -o pipefail; cat $(find / -type f) | sort | uniq -c | sort -rn | head -5";

function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) throw new Error("percentile of no values");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

async function bash(client: McpClient, command: string): Promise<void> {
  const result = await client.callTool("bash", { command }, { timeoutMs: 120_000 });
  const exitCode = (result.structuredContent as { exitCode?: number } | undefined)?.exitCode;
  if (result.isError || exitCode !== 0) {
    throw new Error(`mcp_http bench: "${command}" failed: ${JSON.stringify(result).slice(0, 400)}`);
  }
}

async function timedLight(client: McpClient, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let n = 0; n < count; n++) {
    const start = performance.now();
    await bash(client, LIGHT[n % LIGHT.length]!);
    times.push(performance.now() - start);
  }
  return times;
}

export async function measureMcpHttp(options: McpHttpLoadOptions): Promise<BenchRow[]> {
  const { store, sessionCounts = [8, 32], requests = 2_000, lightRequests = 300, sessions } = options;
  const served = await serveDocsMcpHttp({ store, sessions, poolLimits: options.poolLimits });
  const clients: McpClient[] = [];
  const connect = async () => {
    const client = await McpClient.connect(`bench-${clients.length}`, { type: "http", url: served.url });
    clients.push(client);
    return client;
  };
  const rows: BenchRow[] = [];
  try {
    for (const sessions of sessionCounts) {
      const pool = await Promise.all(Array.from({ length: sessions }, connect));
      // Warm every session's worker page cache and tree once, untimed.
      await Promise.all(pool.map((client) => bash(client, "cat /quickstart.mdx > /dev/null")));
      const latencies: number[] = [];
      let next = 0;
      const start = performance.now();
      await Promise.all(
        pool.map(async (client, index) => {
          for (let n = index; ; n++) {
            if (next >= requests) return;
            next++;
            const begun = performance.now();
            await bash(client, MIX[n % MIX.length]!);
            latencies.push(performance.now() - begun);
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      rows.push(
        {
          metric: `mcp_http.req_per_s.${sessions}_sessions`,
          value: latencies.length / seconds,
          unit: "req/s",
        },
        { metric: `mcp_http.p99_ms.${sessions}_sessions`, value: percentile(latencies, 0.99), unit: "ms" },
      );
      await Promise.all(pool.map((client) => client.close()));
    }

    const light = await connect();
    await timedLight(light, LIGHT.length); // warm
    const alone = percentile(await timedLight(light, lightRequests), 0.99);
    const heavy = await connect();
    // Once untimed: its pages cached, the heavy command is pure CPU from then on.
    await bash(heavy, HEAVY);
    let lightDone = false;
    const heavyLoop = (async () => {
      while (!lightDone) {
        await bash(heavy, HEAVY);
      }
    })();
    // The light run starts once the heavy command is under way.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const beside = percentile(await timedLight(light, lightRequests), 0.99);
    lightDone = true;
    await heavyLoop;
    rows.push(
      { metric: "mcp_http.light_p99_ms_alone", value: alone, unit: "ms" },
      compared("mcp_http.light_p99_ms_beside_heavy", beside, "ms", "mcp_http.light_p99_ms_alone", alone),
    );
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    await served.close();
  }
  return rows;
}
