import type { Tool } from "@atrium/spec";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { sanitizeToolName } from "../client/tool-names.js";

/** What an MCP server built by `serveMcp` publishes: a tool set, or an agent as one tool. */
export interface ServeToolsOptions {
  name: string;
  version: string;
  tools: readonly Tool[];
  /** Told to clients at initialize; MCP hosts show it to their model. */
  instructions?: string;
}

/**
 * Any agent: `run(task)` resolving to `{ output }`. Structural so this package needs no
 * dependency on @atrium/agent (a `CodeAgent` fits as it is).
 */
export interface ServableAgent {
  name?: string;
  description?: string;
  run(task: string, options?: { signal?: AbortSignal }): Promise<{ output: unknown }>;
}

export interface ServeAgentOptions {
  name: string;
  version: string;
  agent: ServableAgent;
  /** The one tool's name; defaults to the agent's name, else the server's. */
  toolName?: string;
  description?: string;
  instructions?: string;
}

export type ServeMcpOptions = (ServeToolsOptions | ServeAgentOptions) & {
  /**
   * Adds more to each server before it connects (once for stdio, once per HTTP session):
   * resources, prompts, through `server.registerCapabilities` and `server.setRequestHandler`.
   */
  extend?: (server: Server) => void;
};

/** The tool set an options object stands for: its tools, or the agent wrapped as one tool. */
export function servedTools(options: ServeMcpOptions): readonly Tool[] {
  return "agent" in options ? [agentTool(options)] : options.tools;
}

export function agentTool(options: ServeAgentOptions): Tool<{ task: string }> {
  const { agent } = options;
  const name = sanitizeToolName(options.toolName ?? agent.name ?? options.name);
  return {
    name,
    description:
      options.description ??
      agent.description ??
      `Runs the agent "${agent.name ?? options.name}" on a task given in plain words and returns its final answer.`,
    inputSchema: {
      type: "object",
      properties: {
        task: { type: "string", minLength: 1, description: "The task for the agent, in plain words." },
      },
      required: ["task"],
      additionalProperties: false,
    },
    async execute({ task }, context) {
      const result = await agent.run(task, { signal: context.signal });
      return result.output;
    },
  };
}
