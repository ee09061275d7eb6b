import { type Agent, ConfigError, type Tool } from "@atrium/spec";
import { z } from "zod";
import { managedAgentTask } from "../prompts/loop-prompts.js";
import { tool } from "../tools/tool.js";

export interface ManagedAgentToolOptions {
  /** The tool name the manager calls (default: the agent's `name`). */
  name?: string | undefined;
  /** What the manager reads to decide when to delegate (default: the agent's `description`). */
  description?: string | undefined;
}

export interface ManagedAgentInput {
  task: string;
  additional_args?: Record<string, unknown>;
}

/**
 * A tool that hands a task to a worker agent and returns its final answer. Every call gets a
 * fresh worker from `makeWorker` (own memory, own sandbox), closed afterwards, so parallel calls
 * never share state. The worker's steps are reported as progress of the tool call (out of its
 * `maxSteps`, when it has one). Any spec `Agent` can be a worker.
 */
export function managedAgentTool(
  options: ManagedAgentToolOptions,
  makeWorker: () => Agent,
): Tool<ManagedAgentInput> {
  const { name, description } = options;
  if (!name || !description) {
    throw new ConfigError(
      "asTool() needs a name and a description (pass them here or to the agent's options): the manager model chooses tools by them",
    );
  }
  return tool({
    name,
    description,
    inputSchema: z.object({
      task: z.string().min(1).describe("The task, with every detail the agent needs: it sees nothing else."),
      additional_args: z
        .record(z.string(), z.unknown())
        .optional()
        .describe("Optional data for the task, defined as variables for the agent."),
    }),
    execute: async ({ task, additional_args }, context) => {
      const worker = makeWorker();
      try {
        const result = await worker.run(managedAgentTask(name, task), {
          signal: context.signal,
          ...(additional_args ? { variables: additional_args } : {}),
          onEvent: (event) => {
            if (event.type !== "step-end") return;
            context.onProgress?.({
              progress: event.step,
              ...(worker.maxSteps === undefined ? {} : { total: worker.maxSteps }),
              message: `${name}: step ${event.step} done${event.error ? ` (${event.error.code})` : ""}`,
            });
          },
        });
        return result.output;
      } finally {
        await worker.close();
      }
    },
  });
}
