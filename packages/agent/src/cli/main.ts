#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { AtriumError, ConfigError, type Tool } from "@atrium/spec";
import type { CodeAgent } from "../agents/code-agent.js";
import { formatValue } from "../agents/observation.js";
import type { RunResult } from "../agents/run-types.js";
import type { ToolCallingAgent } from "../agents/tool-calling-agent.js";
import { type CliArgs, parseCliArgs, USAGE } from "./cli-args.js";
import { formatIsolationReport, isolationReport } from "./isolation-report.js";
import { stepTracePrinter, wantsColor } from "./step-trace.js";

/** Exit codes, documented in --help. */
const EXIT = { ok: 0, failed: 1, usage: 2, maxSteps: 3, interrupted: 130 } as const;

interface McpTools {
  tools: Tool[];
  close(): Promise<void>;
}

/**
 * Connects the MCP servers named by --mcp-config, --mcp and --mcp-optional. A server the user
 * asked for that cannot start fails the run (a ConfigError: exit 2); one marked optional
 * (--mcp-optional, or "optional": true in the file) is a warning.
 */
async function connectMcp(args: CliArgs, warn: (text: string) => void): Promise<McpTools> {
  const commandLines = [
    ...args.mcp.map((line) => ({ line, optional: false })),
    ...args.mcpOptional.map((line) => ({ line, optional: true })),
  ];
  if (!args.mcpConfig && commandLines.length === 0) return { tools: [], close: async () => {} };
  const mcp = await import("@atrium/mcp");
  const servers = args.mcpConfig ? await mcp.loadMcpConfigFile(args.mcpConfig) : {};
  for (const { line, optional } of commandLines) {
    const config = mcp.parseMcpCommandLine(line);
    const base = mcp.defaultServerName(config);
    let name = base;
    for (let i = 2; name in servers; i++) name = `${base}_${i}`;
    servers[name] = optional ? { ...config, optional } : config;
  }
  let connection: Awaited<ReturnType<typeof mcp.connectMcpServers>>;
  try {
    connection = await mcp.connectMcpServers(servers);
  } catch (error) {
    // Every server failed: the same report as when only some did.
    if (!(error instanceof mcp.McpConnectError)) throw error;
    const close = async () => {};
    connection = { tools: [], errors: [...error.failures], clients: {}, close, [Symbol.asyncDispose]: close };
  }
  const required = connection.errors.filter((failure) => servers[failure.server]?.optional !== true);
  if (required.length > 0) {
    await connection.close();
    const lines = required.map((failure) => `  ${failure.error.message}`);
    throw new ConfigError(
      `${required.length === 1 ? "an MCP server" : `${required.length} MCP servers`} could not start:\n${lines.join("\n")}\n` +
        `Fix the command or URL, or mark the server optional (--mcp-optional, or "optional": true in --mcp-config).`,
    );
  }
  for (const failure of connection.errors)
    warn(`optional MCP server ${failure.server} skipped: ${failure.error.message}`);
  return { tools: connection.tools, close: () => connection.close() };
}

function version(): string {
  const url = new URL("../../package.json", import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}

export async function main(argv: readonly string[]): Promise<number> {
  const stderr = (text: string) => process.stderr.write(text);
  let args: CliArgs;
  try {
    args = parseCliArgs(argv);
  } catch (error) {
    stderr(`atrium-agent: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  if (args.command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (args.command === "version") {
    process.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  if (args.command === "doctor") {
    const report = await isolationReport();
    process.stdout.write(args.json ? `${JSON.stringify(report)}\n` : formatIsolationReport(report));
    return report.osSandbox.ok ? EXIT.ok : EXIT.failed;
  }

  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error("interrupted (Ctrl-C)"));
  process.once("SIGINT", onSigint);
  let mcp: McpTools | undefined;
  let agent: CodeAgent | ToolCallingAgent | undefined;
  try {
    // Loaded only for a run, so that --help and usage errors answer at once.
    const [{ CodeAgent, ToolCallingAgent }, { resolveModel }] = await Promise.all([
      import("../agents/index.js"),
      import("../models/index.js"),
    ]);
    const model = resolveModel(args.model);
    mcp = await connectMcp(args, (text) => stderr(`atrium-agent: warning: ${text}\n`));
    const options = {
      model,
      tools: mcp.tools,
      ...(args.maxSteps ? { maxSteps: args.maxSteps } : {}),
      ...(args.planningInterval ? { planningInterval: args.planningInterval } : {}),
    };
    agent = args.agent === "code" ? new CodeAgent(options) : new ToolCallingAgent(options);
    const trace = args.quiet ? undefined : stepTracePrinter(stderr, wantsColor(process.stderr));
    const result: RunResult = await agent.run(args.task, {
      images: args.images,
      signal: controller.signal,
      throwOnError: false,
      // On a terminal the reply is shown as the model writes it.
      streamModel: Boolean(trace) && process.stderr.isTTY === true,
      ...(trace ? { onEvent: trace } : {}),
    });
    if (args.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else if (result.state === "success" || result.state === "max_steps") {
      process.stdout.write(`${formatValue(result.output)}\n`);
    }
    if (result.state === "success") return EXIT.ok;
    if (result.state === "max_steps") return EXIT.maxSteps;
    if (!args.json)
      stderr(
        `atrium-agent: the run ${result.state === "aborted" ? "was interrupted" : "failed"}: ${result.error?.message}\n`,
      );
    if (result.state === "aborted") return EXIT.interrupted;
    return result.error?.code === "CONFIG" ? EXIT.usage : EXIT.failed;
  } catch (error) {
    const configuration = error instanceof AtriumError && error.code === "CONFIG";
    stderr(`atrium-agent: ${configuration ? "" : "error: "}${(error as Error).message}\n`);
    return configuration ? EXIT.usage : EXIT.failed;
  } finally {
    process.off("SIGINT", onSigint);
    await agent?.close();
    await mcp?.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
