// A CodeAgent with a scripted model calls tools of a real MCP server (server-everything over
// stdio) from inside QuickJS, exactly like local tools, and answers with their results; and a
// CodeAgent served with serveMcpHttp is called as an MCP tool.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CodeAgent, QuickJsExecutor, ScriptedModel, tool } from "@atrium/agent";
import { connectMcpServers, type McpConnection, serveMcpHttp } from "@atrium/mcp";
import { AbortError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { js, lastText } from "./scripted-steps.js";

const require = createRequire(import.meta.url);
const everything = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

describe("CodeAgent × MCP", () => {
  let mcp: McpConnection;
  const agents: CodeAgent[] = [];
  const agentWith = (model: ScriptedModel) => {
    const agent = new CodeAgent({ model, tools: mcp.tools, executor: () => QuickJsExecutor.create() });
    agents.push(agent);
    return agent;
  };

  beforeAll(async () => {
    mcp = await connectMcpServers({ everything: { command: process.execPath, args: [everything, "stdio"] } });
  });
  afterAll(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await mcp?.close();
  });

  it("calls an MCP tool from inside QuickJS and answers with its result", async () => {
    const model = new ScriptedModel([
      js("const sum = await get_sum({ a: 20, b: 22 });\nconsole.log(sum);"),
      js("final_answer(sum)"),
    ]);
    const result = await agentWith(model).run("What is 20 + 22? Use the tool.");

    expect(result.state).toBe("success");
    expect(result.output).toBe("The sum of 20 and 22 is 42.");
    expect(lastText(model.calls[1]!.messages)).toBe(
      "Observation:\nExecution logs:\nThe sum of 20 and 22 is 42.",
    );
  });

  it("gets structured content as an object inside the sandbox", async () => {
    const model = new ScriptedModel([
      js(
        'const weather = await get_structured_content({ location: "Los Angeles" });\nfinal_answer(weather.conditions + ", " + weather.temperature)',
      ),
    ]);
    const result = await agentWith(model).run("Weather in Los Angeles?");
    expect(result.output).toBe("Sunny / Clear, 73");
  });

  it("surfaces the MCP server's progress notifications as tool-progress events", async () => {
    const model = new ScriptedModel([
      js("final_answer(await trigger_long_running_operation({ duration: 0.2, steps: 2 }))"),
    ]);
    const progress: unknown[] = [];
    const result = await agentWith(model).run("Run the long operation.", {
      onEvent: (event) => {
        if (event.type === "tool-progress") progress.push([event.name, event.progress]);
      },
    });
    expect(result.output).toBe("Long running operation completed. Duration: 0.2 seconds, Steps: 2.");
    expect(progress).toEqual([
      ["trigger_long_running_operation", { progress: 1, total: 2 }],
      ["trigger_long_running_operation", { progress: 2, total: 2 }],
    ]);
  });

  it("aborting the run cancels the MCP call in flight, and the server stays usable", async () => {
    const model = new ScriptedModel([
      js("final_answer(await trigger_long_running_operation({ duration: 30, steps: 30 }))"),
    ]);
    const controller = new AbortController();
    const started = Date.now();
    const run = agentWith(model).run("Run the very long operation.", {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "tool-progress") controller.abort();
      },
    });
    await expect(run).rejects.toThrow(new AbortError("The run was aborted"));
    // The operation would take 30 s; the abort ends the run long before.
    expect(Date.now() - started).toBeLessThan(15_000);
    const echo = mcp.tools.find((tool) => tool.name === "echo")!;
    expect(await echo.execute({ message: "after" }, { signal: new AbortController().signal })).toBe(
      "Echo: after",
    );
  });
});

describe("a CodeAgent served over MCP", () => {
  it("is one tool { task } that runs the agent and returns its answer", async () => {
    const model = new ScriptedModel([js('final_answer("five letters")')]);
    const agent = new CodeAgent({
      name: "counter",
      description: "Counts the characters of its task",
      model,
      executor: () => QuickJsExecutor.create(),
    });
    const served = await serveMcpHttp({ name: "agent-server", version: "0.1.0", agent });
    const client = await connectMcpServers({ agent: { url: served.url } });
    try {
      expect(client.tools.map((tool) => [tool.name, tool.description])).toEqual([
        ["counter", "Counts the characters of its task"],
      ]);
      const output = await client.tools[0]!.execute(
        { task: "hello" },
        { signal: new AbortController().signal },
      );
      expect(output).toBe("five letters");
      expect(lastText(model.calls[0]!.messages)).toBe("New task:\nhello");
    } finally {
      await client.close();
      await served.close();
      await agent.close();
    }
  });
});

describe("tools made with tool() (zod), served over MCP", () => {
  it("keep their zod validation: a bad call comes back as an isError result naming the field", async () => {
    const add = tool({
      name: "add",
      description: "Adds two numbers.",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    });
    const served = await serveMcpHttp({ name: "zod-tools", version: "0.1.0", tools: [add] });
    const client = await connectMcpServers({ zod: { url: served.url } });
    try {
      const remote = client.clients.zod!;
      expect(await remote.callTool("add", { a: 2, b: 3 })).toEqual({
        content: [{ type: "text", text: "5" }],
      });
      expect(await remote.callTool("add", { a: "2" })).toEqual({
        content: [
          {
            type: "text",
            text: 'Invalid input for tool "add": a: Invalid input: expected number, received string; b: Invalid input: expected number, received undefined',
          },
        ],
        isError: true,
      });
    } finally {
      await client.close();
      await served.close();
    }
  });
});
