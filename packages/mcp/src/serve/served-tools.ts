import type { Agent, Tool } from "@atrium/spec";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { sanitizeToolName } from "../client/tool-names.js";
import type { ServeSessionOptions } from "./session-tools.js";

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

/** The tool set an options object stands for: its tools, or the agent wrapped as one tool. */
export function servedTools(options: FixedServeMcpOptions): readonly Tool[] {
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
      // Each finished step is a progress notification, for clients that asked for them.
      const onProgress = context.onProgress;
      const result = await agent.run(task, {
        signal: context.signal,
        ...(onProgress
          ? {
              onEvent: (event) => {
                if (event.type !== "step-end") return;
                onProgress({
                  progress: event.step,
                  ...(agent.maxSteps === undefined ? {} : { total: agent.maxSteps }),
                  message: `step ${event.step} done${event.error ? ` (${event.error.code})` : ""}`,
                });
              },
            }
          : {}),
      });
      return result.output;
    },
  };
}
