import type { Tool } from "@atrium/spec";
import { sanitizeToolName } from "../client/tool-names.js";
import type { ServedToolContext } from "./elicit-approval.js";
import type { FixedServeMcpOptions, ServeAgentOptions } from "./serve-options.js";

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
    async execute({ task }, context: ServedToolContext) {
      // Each finished step is a progress notification, for clients that asked for them.
      const onProgress = context.onProgress;
      // The server's own answer first; else the client that called is asked (elicitation).
      const onApproval = options.onApproval ?? context.onApproval;
      const result = await agent.run(task, {
        signal: context.signal,
        ...(onApproval ? { onApproval } : {}),
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
