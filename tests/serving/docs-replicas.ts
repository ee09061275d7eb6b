// The docs serving topology of docs/DEPLOYMENT.md, on one machine: one Chroma server holding an
// ingested docs collection, N `atrium-docs mcp --http` processes reading it (stateless but for
// their MCP sessions), and HAProxy in front with session affinity. Every part is a real process
// started by the repository's own code and stopped by its PID.
import { type ChromaCorpus, startChromaCorpus } from "../../packages/chromafs/test/oracle/chroma-corpus.ts";
import { type AtriumDocsMcp, startAtriumDocsMcp, stopAtriumDocsMcp } from "../e2e/atrium-docs-mcp.ts";
import { type RunningHaproxy, startHaproxy } from "./haproxy.ts";

export const DOCS_COLLECTION = "docs";

/** A Chroma server of its own (a temporary data dir) with `docsDir` ingested as DOCS_COLLECTION. */
export const startDocsChroma = (docsDir: string): Promise<ChromaCorpus> =>
  startChromaCorpus(docsDir, DOCS_COLLECTION);

export interface DocsReplicas {
  readonly replicas: readonly AtriumDocsMcp[];
  readonly balancer: RunningHaproxy;
  /** Every process's PID: the replicas', then HAProxy's. */
  pids(): number[];
  /** HAProxy first (no new requests), then each replica still running; by PID. */
  stop(): Promise<void>;
}

/**
 * `count` replicas of `atrium-docs mcp --http --no-auth` over the collection at `chromaUrl`
 * (loopback only, as --no-auth requires), started one after the other so that two tsx start-ups
 * do not share the machine's two cores, then HAProxy in front of them.
 */
export async function startDocsReplicas(chromaUrl: string, count: number): Promise<DocsReplicas> {
  const replicas: AtriumDocsMcp[] = [];
  let balancer: RunningHaproxy | undefined;
  const stop = async () => {
    try {
      await balancer?.stop();
    } finally {
      await Promise.all(replicas.map((replica) => stopAtriumDocsMcp(replica, "SIGTERM")));
    }
  };
  try {
    for (let n = 0; n < count; n++) {
      replicas.push(
        await startAtriumDocsMcp([
          "--collection",
          DOCS_COLLECTION,
          "--chroma-url",
          chromaUrl,
          "--http",
          "--no-auth",
        ]),
      );
    }
    balancer = await startHaproxy({ replicas: replicas.map((replica) => replica.url) });
    const running = balancer;
    return {
      replicas,
      balancer: running,
      pids: () => [...replicas.map((replica) => replica.child.pid as number), running.pid],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
