// Throughput through the load balancer: K sessions, each calling the docs `bash` tool in a loop
// for a fixed time, every answer checked against the first one for its command (a replica that
// answered differently would be a wrong answer, not a faster one).
import { median } from "@atrium/bench";
import { machineIdleSeconds, processCpuSeconds } from "./process-cpu.ts";
import { connectThroughBalancer, type ReplicaSession } from "./replica-client.ts";

export interface ThroughputOptions {
  /** The MCP endpoint (HAProxy's). */
  url: string;
  /** Commands cycled through; each session starts at its own place in the list. */
  commands: readonly string[];
  /** Concurrent sessions. */
  clients: number;
  /** Timed runs; the figure is their median. */
  runs: number;
  /** How long each run keeps starting calls. */
  runMs: number;
  /** Each call's bound. */
  callTimeoutMs: number;
  /** The serving processes (replicas, HAProxy, Chroma) whose CPU time the timed runs used. */
  pids: readonly number[];
}

export interface Throughput {
  /** Median over the runs of calls answered per second. */
  callsPerSecond: number;
  /** Median latency of one call over all runs, ms. */
  medianCallMs: number;
  /** How many sessions each replica held (HAProxy's server name → count). */
  sessionsByReplica: Record<string, number>;
  /** Cores busy on average during the timed runs: the serving processes and these clients. */
  coresUsed: number;
  /** Cores idle on average during the timed runs, machine-wide. */
  coresIdle: number;
}

export async function measureThroughput(options: ThroughputOptions): Promise<Throughput> {
  const { commands, callTimeoutMs } = options;
  const sessions: ReplicaSession[] = [];
  try {
    for (let n = 0; n < options.clients; n++) {
      sessions.push(await connectThroughBalancer(options.url, callTimeoutMs));
    }
    // The truth for each command, and every session's pages read once, untimed.
    const truth = new Map<string, string>();
    for (const session of sessions) {
      for (const command of commands) {
        const answer = await session.bash(command, callTimeoutMs);
        const text = JSON.stringify(answer.structured);
        if (answer.isError || (answer.structured as { exitCode?: number }).exitCode !== 0) {
          throw new Error(`replica bench: "${command}" failed: ${answer.text.slice(0, 400)}`);
        }
        if (!truth.has(command)) truth.set(command, text);
        else if (truth.get(command) !== text)
          throw new Error(`replica bench: "${command}" answered differently`);
      }
    }
    const rates: number[] = [];
    const latencies: number[] = [];
    const cpuBefore = cpuNow(options.pids);
    const wallBefore = performance.now();
    for (let run = 0; run < options.runs; run++) {
      let answered = 0;
      const started = performance.now();
      const deadline = started + options.runMs;
      await Promise.all(
        sessions.map(async (session, index) => {
          for (let n = index; performance.now() < deadline; n++) {
            const command = commands[n % commands.length]!;
            const begun = performance.now();
            const answer = await session.bash(command, callTimeoutMs);
            latencies.push(performance.now() - begun);
            if (answer.isError || JSON.stringify(answer.structured) !== truth.get(command)) {
              throw new Error(`replica bench: a wrong answer to "${command}": ${answer.text.slice(0, 400)}`);
            }
            answered++;
          }
        }),
      );
      rates.push(answered / ((performance.now() - started) / 1000));
    }
    const wall = (performance.now() - wallBefore) / 1000;
    const cpuAfter = cpuNow(options.pids);
    const sessionsByReplica: Record<string, number> = {};
    for (const session of sessions) {
      sessionsByReplica[session.replica] = (sessionsByReplica[session.replica] ?? 0) + 1;
    }
    return {
      callsPerSecond: median(rates),
      medianCallMs: median(latencies),
      sessionsByReplica,
      coresUsed: (cpuAfter.used - cpuBefore.used) / wall,
      coresIdle: (cpuAfter.idle - cpuBefore.idle) / wall,
    };
  } finally {
    await Promise.all(sessions.map((session) => session.close()));
  }
}

/** CPU seconds so far: of `pids` and this process (the clients), and the machine's idle time. */
function cpuNow(pids: readonly number[]): { used: number; idle: number } {
  const own = process.cpuUsage();
  const serving = pids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
  return { used: serving + (own.user + own.system) / 1e6, idle: machineIdleSeconds() };
}
