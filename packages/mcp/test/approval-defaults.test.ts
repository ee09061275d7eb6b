// Which MCP tools need an approval: read from the annotations a real server lists, under each
// server's `approval` policy (config file and code alike).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, type Tool, type ToolAnnotations } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectMcpServers,
  loadMcpConfigFile,
  type McpApprovalPolicy,
  type ServedMcpHttp,
  serveMcpHttp,
} from "../src/index.js";

/** A tool that only says what it does to the world; it never runs here. */
function hinted(name: string, annotations?: ToolAnnotations): Tool {
  return {
    name,
    description: `${name} (annotations: ${JSON.stringify(annotations ?? null)})`,
    inputSchema: { type: "object", properties: {} },
    ...(annotations ? { annotations } : {}),
    execute: async () => name,
  };
}

const TOOLS = [
  hinted("reads", { readOnlyHint: true }),
  hinted("appends", { readOnlyHint: false, destructiveHint: false }),
  hinted("erases", { readOnlyHint: false, destructiveHint: true }),
  hinted("says_nothing"),
  hinted("titled_only", { title: "No hints, MCP's defaults apply" }),
  // A read-only tool destroys nothing, whatever else it says (MCP: destructiveHint is
  // meaningful only when readOnlyHint is false).
  hinted("reads_but_says_destructive", { readOnlyHint: true, destructiveHint: true }),
  hinted("writes_unsaid", { readOnlyHint: false }),
];

let served: ServedMcpHttp;
const dir = mkdtempSync(join(tmpdir(), "atrium-mcp-approval-"));
beforeAll(async () => {
  served = await serveMcpHttp({ name: "hints", version: "1.0.0", tools: TOOLS });
});
afterAll(async () => {
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function needsApprovalBy(approval?: McpApprovalPolicy): Promise<Record<string, unknown>> {
  await using mcp = await connectMcpServers({
    hints: { url: served.url, ...(approval ? { approval } : {}) },
  });
  return Object.fromEntries(mcp.tools.map((tool) => [tool.name, tool.needsApproval]));
}

describe("MCP tools' needsApproval", () => {
  it("by default, every tool MCP says may destroy: not read-only and not destructiveHint: false", async () => {
    expect(await needsApprovalBy()).toEqual({
      reads: false,
      appends: false,
      erases: true,
      says_nothing: true,
      titled_only: true,
      reads_but_says_destructive: false,
      writes_unsaid: true,
    });
    expect(await needsApprovalBy("destructive")).toEqual(await needsApprovalBy());
  });

  it('"always" asks for every tool, "never" for none', async () => {
    const names = TOOLS.map((tool) => tool.name);
    expect(await needsApprovalBy("always")).toEqual(Object.fromEntries(names.map((name) => [name, true])));
    expect(await needsApprovalBy("never")).toEqual(Object.fromEntries(names.map((name) => [name, false])));
  });

  it("a config file's approval key reaches the tools, and a wrong value names the field and the choices", async () => {
    const path = join(dir, "servers.json");
    writeFileSync(
      path,
      JSON.stringify({
        mcpServers: { hints: { url: served.url, approval: "always" }, off: { command: "x", disabled: true } },
      }),
    );
    const servers = await loadMcpConfigFile(path);
    expect(servers).toEqual({ hints: { url: served.url, approval: "always" } });
    await using mcp = await connectMcpServers(servers);
    expect(mcp.tools.find((tool) => tool.name === "reads")?.needsApproval).toBe(true);

    writeFileSync(
      path,
      JSON.stringify({ mcpServers: { local: { command: "node", approval: "sometimes" } } }),
    );
    await expect(loadMcpConfigFile(path)).rejects.toThrow(
      new ConfigError(`${path}: mcpServers.local.approval: expected "destructive", "always" or "never"`),
    );
  });

  it("a config built in code with a misspelt policy is refused before anything starts", async () => {
    await expect(
      connectMcpServers({ hints: { url: served.url, approval: "allways" as McpApprovalPolicy } }),
    ).rejects.toThrow(
      new ConfigError(
        'MCP server "hints": approval must be "destructive", "always" or "never", not "allways"',
      ),
    );
  });
});
