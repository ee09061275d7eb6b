import type { Agent, ApprovalHandler, Tool } from "@atrium/spec";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { McpIdentity } from "./client-identity.js";

/** What an MCP server built by `serveMcp` publishes: a tool set, or an agent as one tool. */
export interface ServeToolsOptions {
  name: string;
  version: string;
  tools: readonly Tool[];
  /** Told to clients at initialize; MCP hosts show it to their model. */
  instructions?: string;
}

export interface ServeAgentOptions {
  name: string;
  version: string;
  /** Any spec `Agent` (a `CodeAgent` fits as it is); this package needs no @atrium/agent. */
  agent: Agent;
  /** The one tool's name; defaults to the agent's name, else the server's. */
  toolName?: string;
  description?: string;
  instructions?: string;
  /**
   * Answers the agent's calls that need approval. Without it the client that called the agent
   * is asked (MCP elicitation), and a client that cannot be asked has such calls refused.
   */
  onApproval?: ApprovalHandler;
}

interface ExtendOption {
  /**
   * Adds more to each server before it connects (once for stdio, once per HTTP session):
   * resources, prompts, through `server.registerCapabilities` and `server.setRequestHandler`.
   */
  extend?: (server: Server) => void;
}

/** A fixed tool set, an agent as one tool, or a tool set opened per session for its client. */
export type ServeMcpOptions = (ServeToolsOptions | ServeAgentOptions | ServeSessionOptions) & ExtendOption;

/** Options whose tools are known without a client: what `createMcpServer` takes. */
export type FixedServeMcpOptions = (ServeToolsOptions | ServeAgentOptions) & ExtendOption;

/** The tools one client's session gets, and what to release when that session ends. */
export interface SessionTools {
  tools: readonly Tool[];
  close?(): Promise<void>;
}

/**
 * A tool set opened per session: what a server whose clients see different things serves
 * (chromafs opens a docs session with the identity's groups; the palace maps them to wings).
 */
export interface ServeSessionOptions {
  name: string;
  version: string;
  instructions?: string;
  /**
   * Called once per HTTP session (and once for stdio) with the client's identity: undefined
   * when serving is not authenticated (stdio, whose client is the local user, or HTTP without
   * `auth`). A throw refuses the session with its message.
   */
  openSession(identity: McpIdentity | undefined): SessionTools | Promise<SessionTools>;
}
