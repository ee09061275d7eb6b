// One MCP session through the load balancer, on the official SDK's client and its streamable
// HTTP transport as they ship (no retry, no session renewal of Atrium's own): what any MCP host
// does. Its fetch only reads the header HAProxy adds, so a test can say which replica answered.
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { REPLICA_HEADER } from "./haproxy.ts";

/** What the docs `bash` tool answers: its structured content, as the server sent it. */
export interface BashAnswer {
  isError: boolean;
  structured: unknown;
  text: string;
}

export interface ReplicaSession {
  /** The replica (HAProxy's server name, r0, r1, …) that created the session. */
  readonly replica: string;
  readonly sessionId: string;
  /** The replicas that answered this session's requests, in order, repeats removed. */
  readonly answeredBy: readonly string[];
  /** One `bash` call; throws the SDK's error on an HTTP or MCP failure or after `timeoutMs`. */
  bash(command: string, timeoutMs: number): Promise<BashAnswer>;
  /** Ends the session (a DELETE, bounded), then the client; never throws. */
  close(): Promise<void>;
}

const SESSION_END_MS = 2_000;

export async function connectThroughBalancer(url: string, timeoutMs: number): Promise<ReplicaSession> {
  const answeredBy: string[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const replica = response.headers.get(REPLICA_HEADER);
    if (replica && answeredBy.at(-1) !== replica) answeredBy.push(replica);
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });
  const client = new Client({ name: "replica-test", version: "1.0.0" }, { capabilities: {} });
  // The SDK reports a broken stream here; the call it carried fails by its own timeout.
  client.onerror = () => {};
  await client.connect(transport, { timeout: timeoutMs });
  const replica = answeredBy[0];
  const sessionId = transport.sessionId;
  if (!replica || !sessionId) {
    await client.close().catch(() => {});
    throw new Error(`initialize through ${url} gave no session id or no ${REPLICA_HEADER} header`);
  }
  return {
    replica,
    sessionId,
    answeredBy,
    async bash(command, callTimeoutMs) {
      const result = (await client.callTool({ name: "bash", arguments: { command } }, undefined, {
        timeout: callTimeoutMs,
      })) as CallToolResult;
      const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      return { isError: result.isError === true, structured: result.structuredContent, text };
    },
    async close() {
      const ended = transport.terminateSession().catch(() => {});
      await Promise.race([ended, sleep(SESSION_END_MS, undefined, { ref: false })]);
      await client.close().catch(() => {});
    },
  };
}
