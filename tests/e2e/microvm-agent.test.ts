// A CodeAgent whose code runs in Python inside a QEMU micro-VM (@atrium/microvm) with the guest's
// network off: the agent contract's scenarios, a local tool and a real MCP server's tool
// (server-everything over stdio) called from guest Python through the agent channel. One booted
// machine serves the whole file; each agent gets a fresh interpreter in it. The model is
// scripted; everything else is real.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CodeAgent, ScriptedModel, tool } from "@atrium/agent";
import { connectMcpServers, type McpConnection } from "@atrium/mcp";
import { bootPythonMachine, type Machine, MicroVmExecutor } from "@atrium/microvm";
import type { Message } from "@atrium/spec";
import { agentContract, describeContract } from "@atrium/spec/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { lastText } from "./scripted-steps.js";

const py = (code: string) => `Thought: next.\n\`\`\`py\n${code}\n\`\`\``;
const stepOf = (messages: Message[]) => messages.filter((message) => message.role === "assistant").length + 1;

const add = tool({
  name: "add",
  description: "Adds two numbers.",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => a + b,
});

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

// Real guests need QEMU, a kernel, musl-gcc, busybox-static and Debian's python3 (.ci/setup.sh
// installs them); without them this file skips, except under CI=true where it must run.
const VM_READY =
  process.env.CI === "true" ||
  ["/usr/bin/qemu-system-x86_64", "/usr/bin/musl-gcc", "/bin/busybox", "/usr/bin/python3"].every((path) =>
    existsSync(path),
  );

let machine: Machine | undefined;
const inSharedMachine = () => MicroVmExecutor.create({ machine: machine as Machine });

describe.skipIf(!VM_READY)("micro-VM", () => {
  beforeAll(async () => {
    machine = await bootPythonMachine();
  }, 240_000);
  afterAll(async () => {
    await machine?.stop();
  });
  describeContract(
    agentContract(
      async () =>
        new CodeAgent({
          name: "vmcoder",
          description: "Adds numbers in Python in a micro-VM.",
          tools: [add],
          executor: inSharedMachine,
          model: new ScriptedModel((messages) =>
            stepOf(messages) === 1
              ? py("total = add(a=2, b=3)\nprint(total)")
              : py('final_answer({"city": "Lisbon", "sum": total})'),
          ),
        }),
      {
        task: "Add 2 and 3, then say where the marathon is.",
        output: { city: "Lisbon", sum: 5 },
        timeoutMs: 120_000,
      },
    ),
    180_000,
  );

  describe("CodeAgent × Python in a micro-VM", () => {
    let mcp: McpConnection;
    const agents: CodeAgent[] = [];
    beforeAll(async () => {
      mcp = await connectMcpServers({
        everything: { command: process.execPath, args: [everything, "stdio"] },
      });
    });
    afterAll(async () => {
      await Promise.allSettled(agents.map((agent) => agent.close()));
      await mcp?.close();
    });
    const agentWith = (model: ScriptedModel, tools: CodeAgent["tools"][number][]) => {
      const agent = new CodeAgent({ model, tools, executor: inSharedMachine });
      agents.push(agent);
      return agent;
    };

    it("answers with a local tool and an MCP tool called from guest Python, the network off", async () => {
      const model = new ScriptedModel([
        py("r = add(2, b=40)\ns = get_sum(a=20, b=22)\nprint('sum is', r)\nprint(s)"),
        py("final_answer([r, s])"),
      ]);
      const result = await agentWith(model, [add, ...mcp.tools]).run("Add twice.");
      expect(result.state).toBe("success");
      expect(result.output).toEqual([42, "The sum of 20 and 22 is 42."]);
      expect(lastText(model.calls[1]!.messages)).toBe(
        "Observation:\nExecution logs:\nsum is 42\nThe sum of 20 and 22 is 42.",
      );
    }, 180_000);
  });
});
