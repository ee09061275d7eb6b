// The client against the real reference server from npm, over every transport it speaks.
import { AbortError, ClosedError, isRichToolResult, ToolError } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpConnection, type McpServerConfig } from "../src/index.js";
import { everythingStdio, isAlive, type RunningServer, startEverythingHttp } from "./servers.js";

const EVERYTHING_TOOLS = [
  "echo",
  "get_annotated_message",
  "get_env",
  "get_resource_links",
  "get_resource_reference",
  "get_structured_content",
  "get_sum",
  "get_tiny_image",
  "gzip_file_as_resource",
  "toggle_simulated_logging",
  "toggle_subscriber_updates",
  "trigger_long_running_operation",
  "simulate_research_query",
];
const signal = () => new AbortController().signal;

const transports: {
  label: string;
  kind: string;
  start: () => Promise<{ config: McpServerConfig; stop?: () => Promise<void> }>;
}[] = [
  { label: "stdio", kind: "stdio", start: async () => ({ config: everythingStdio }) },
  {
    label: "streamable HTTP",
    kind: "streamable-http",
    start: async () => {
      const server = await startEverythingHttp("streamableHttp");
      return { config: { url: server.url, headers: { "x-test": "1" } }, stop: server.stop };
    },
  },
];

describe.each(transports)("server-everything over $label", ({ kind, start }) => {
  let connection: McpConnection;
  let stop: (() => Promise<void>) | undefined;
  const tool = (name: string) => {
    const found = connection.tools.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };

  beforeAll(async () => {
    const started = await start();
    stop = started.stop;
    connection = await connectMcpServers({ everything: started.config });
  });
  afterAll(async () => {
    await connection?.close();
    await stop?.();
  });

  it("lists the tools under identifier names, keeping the MCP names for calls", () => {
    expect(connection.errors).toEqual([]);
    expect(connection.clients.everything?.transportKind).toBe(kind);
    expect(connection.tools.map((t) => t.name)).toEqual(EVERYTHING_TOOLS);
    expect(tool("get_sum").mcpName).toBe("get-sum");
    expect(tool("get_sum").server).toBe("everything");
    expect(tool("echo").inputSchema).toMatchObject({
      type: "object",
      properties: { message: { type: "string", description: "Message to echo" } },
      required: ["message"],
    });
  });

  it("calls echo and get-sum", async () => {
    expect(await tool("echo").execute({ message: "hello MCP" }, { signal: signal() })).toBe(
      "Echo: hello MCP",
    );
    expect(await tool("get_sum").execute({ a: 2, b: 3 }, { signal: signal() })).toBe(
      "The sum of 2 and 3 is 5.",
    );
  });

  it("validates input against the server's schema before calling", async () => {
    expect(await tool("get_sum").validate!({ a: "2" })).toEqual({
      ok: false,
      issues: [
        { path: ["b"], message: "is required" },
        { path: ["a"], message: "must be number" },
      ],
    });
  });

  it("returns structured content as an object", async () => {
    expect(
      await tool("get_structured_content").execute({ location: "Chicago" }, { signal: signal() }),
    ).toEqual({
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82,
    });
  });

  it("returns images as a RichToolResult", async () => {
    const result = await tool("get_tiny_image").execute({}, { signal: signal() });
    expect(isRichToolResult(result)).toBe(true);
    if (!isRichToolResult(result)) return;
    expect(result.value).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    expect(result.images).toHaveLength(1);
    expect(result.images?.[0]?.mediaType).toBe("image/png");
    const bytes = Buffer.from(result.images?.[0]?.image as string, "base64");
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it("reports progress of a long-running tool", async () => {
    const progress: unknown[] = [];
    const result = await tool("trigger_long_running_operation").execute(
      { duration: 0.3, steps: 3 },
      { signal: signal(), onProgress: (update) => progress.push(update) },
    );
    expect(result).toBe("Long running operation completed. Duration: 0.3 seconds, Steps: 3.");
    expect(progress).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it("turns a tool error into a ToolError with the server's text", async () => {
    const error = await tool("get_sum")
      .execute({ a: "two", b: 3 }, { signal: signal() })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).toolName).toBe("get_sum");
    expect((error as ToolError).message).toBe(
      "MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a",
    );
    expect((error as ToolError).isFatal).toBe(false);
  });

  it("cancels a call through the AbortSignal", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const call = tool("trigger_long_running_operation").execute(
      { duration: 20, steps: 20 },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    const error = await call.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).message).toBe(
      'tool "trigger-long-running-operation" on MCP server "everything" was cancelled',
    );
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("lists and reads resources and prompts", async () => {
    const client = connection.clients.everything!;
    const resources = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain("demo://resource/static/document/architecture.md");
    const contents = await client.readResource("demo://resource/static/document/architecture.md");
    expect(contents[0]).toMatchObject({
      uri: "demo://resource/static/document/architecture.md",
      mimeType: "text/markdown",
    });
    expect((contents[0] as { text: string }).text).toMatch(/^# /);
    const prompts = await client.listPrompts();
    expect(prompts.map((p) => p.name).slice(0, 2)).toEqual(["simple-prompt", "args-prompt"]);
    const prompt = await client.getPrompt("args-prompt", { city: "Oslo" });
    expect(prompt.messages).toEqual([
      { role: "user", content: { type: "text", text: "What's weather in Oslo?" } },
    ]);
  });

  it("times a silent call out with an error naming the server and tool", async () => {
    const error = await connection.clients
      .everything!.callTool(
        "trigger-long-running-operation",
        { duration: 3, steps: 1 },
        { timeoutMs: 300 },
        "trigger_long_running_operation",
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toBe(
      'MCP server "everything" did not answer tool "trigger-long-running-operation" within 300 ms',
    );
    expect((error as ToolError).isRetryable).toBe(true);
  });

  it("close() ends the session and a stdio server's process; later calls fail clearly", async () => {
    const pid = connection.clients.everything!.pid;
    expect(pid === undefined ? "no process" : isAlive(pid)).toBe(kind === "stdio" ? true : "no process");
    await connection.close();
    expect(pid === undefined ? "no process" : isAlive(pid)).toBe(kind === "stdio" ? false : "no process");
    await expect(tool("echo").execute({ message: "late" }, { signal: signal() })).rejects.toThrow(
      new ClosedError('MCP client "everything"'),
    );
  });
});

describe("server-everything over SSE", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startEverythingHttp("sse");
  });
  afterAll(async () => server?.stop());

  it("falls back from streamable HTTP to SSE for an older server", async () => {
    const connection = await connectMcpServers({ legacy: { url: server.url } });
    try {
      expect(connection.errors).toEqual([]);
      expect(connection.clients.legacy?.transportKind).toBe("sse");
      const echo = connection.tools.find((t) => t.name === "echo")!;
      expect(await echo.execute({ message: "old" }, { signal: signal() })).toBe("Echo: old");
    } finally {
      await connection.close();
    }
  });
});
