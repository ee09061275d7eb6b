import {
  type CliArgs,
  choiceOption,
  defineCommand,
  EXIT_CODES,
  integerOption,
  jsonText,
  UsageError,
} from "@atrium/kit/cli";
import { AtriumError, ConfigError, type Tool } from "@atrium/spec";
import type { CodeAgent } from "../agents/code-agent.js";
import { formatValue } from "../agents/observation.js";
import type { RunResult } from "../agents/run-types.js";
import type { ToolCallingAgent } from "../agents/tool-calling-agent.js";
import { APPROVALS_HELP, APPROVE_OPTIONS, approvalMode, runApprovals } from "./run-approvals.js";
import { stepTracePrinter, wantsColor } from "./step-trace.js";

/** The exit codes of `run` beyond the shared ones, said in the help. */
const EXIT_MAX_STEPS = 3;
const EXIT_INTERRUPTED = 130;

const OPTIONS = {
  model: {
    type: "string",
    value: "<model>",
    help: "the model, e.g. openai:gpt-4o-mini, anthropic:claude-sonnet-4-5,\nollama:llama3.2, openai-compatible:<baseURL>#<model>, scripted:<file.json>\n(default: $ATRIUM_MODEL)",
  },
  agent: {
    type: "string",
    value: "<code|tool-calling>",
    help: "code actions in a sandbox (default) or native tool calls",
  },
  executor: { type: "string", value: "<quickjs>", help: "the sandbox for code actions (default: quickjs)" },
  image: {
    type: "string",
    multiple: true,
    value: "<path|url>",
    help: "send an image with the task (repeatable)",
  },
  "max-steps": {
    type: "string",
    value: "<n>",
    help: "action steps before the closing answer call (default: 20)",
  },
  "planning-interval": { type: "string", value: "<n>", help: "plan before step 1 and every n steps" },
  "mcp-config": {
    type: "string",
    value: "<file>",
    help: 'MCP servers file ({ "mcpServers": { ... } }); their tools join the agent',
  },
  mcp: {
    type: "string",
    multiple: true,
    value: '"<command line>"',
    help: "an MCP server command line or URL (repeatable); the run fails\n(exit 2) when it cannot start",
  },
  "mcp-optional": {
    type: "string",
    multiple: true,
    value: '"<command line>"',
    help: 'the same, but a server that cannot start is only a warning\n(in a config file: "optional": true)',
  },
  ...APPROVE_OPTIONS,
  json: { type: "boolean", help: "print the RunResult as JSON on stdout instead of the answer" },
  quiet: { type: "boolean", help: "no step trace on stderr" },
} as const;

type RunArgs = CliArgs<typeof OPTIONS>;

export const runCommand = defineCommand({
  name: "run",
  summary: "run an agent on a task: its step trace on stderr, its answer on stdout",
  usage: '"<task>" --model <model> [options]',
  description:
    "Runs an agent on a task and prints its step trace (stderr) and answer (stdout). A configuration\nthat cannot work (no model, an MCP server that cannot start) exits 2.",
  arguments: [['"<task>"', "what the agent should do, quoted as one argument"]],
  options: OPTIONS,
  positionals: { max: Number.POSITIVE_INFINITY },
  footer: `${APPROVALS_HELP}\n\nExit codes: 0 answered, 1 the run failed, 2 bad usage or configuration, 3 answered after\nmax steps, 130 interrupted.`,
  async run(args, io) {
    const settings = runSettings(args, io.env);
    const approval = approvalMode(args.values, args.values.approve ? io.stdin : {});
    const approvals = runApprovals(approval, {
      stdin: () => io.stdin,
      write: (text) => io.stderr.write(text),
      traced: !args.values.quiet,
    });
    // Everything on stderr goes through the approvals, which share the terminal with it.
    const stderr = approvals.write;
    const controller = new AbortController();
    // Held for the whole run, not `once`: the MCP client's exit hook (signal-exit) re-raises a
    // SIGINT that no other listener holds, which killed the process before the run could end
    // cleanly. A second Ctrl-C lets go and ends the process at once.
    let interrupted = false;
    const onSigint = () => {
      if (interrupted) {
        process.off("SIGINT", onSigint);
        process.kill(process.pid, "SIGINT");
        return;
      }
      interrupted = true;
      controller.abort(new Error("interrupted (Ctrl-C)"));
    };
    process.on("SIGINT", onSigint);
    let mcp: McpTools | undefined;
    let agent: CodeAgent | ToolCallingAgent | undefined;
    try {
      // Loaded only for a run, so that --help and usage errors answer at once.
      const [{ CodeAgent, ToolCallingAgent }, { resolveModel }] = await Promise.all([
        import("../agents/index.js"),
        import("../models/index.js"),
      ]);
      const model = resolveModel(settings.model);
      mcp = await connectMcp(args, (text) => stderr(`atrium-agent: warning: ${text}\n`));
      const options = {
        model,
        tools: mcp.tools,
        ...(settings.maxSteps ? { maxSteps: settings.maxSteps } : {}),
        ...(settings.planningInterval ? { planningInterval: settings.planningInterval } : {}),
      };
      agent = settings.agent === "code" ? new CodeAgent(options) : new ToolCallingAgent(options);
      const trace = args.values.quiet ? undefined : stepTracePrinter(stderr, wantsColor(io.stderr, io.env));
      const { observe, onApproval } = approvals;
      const result: RunResult = await agent.run(settings.task, {
        images: args.values.image ?? [],
        signal: controller.signal,
        throwOnError: false,
        // On a terminal the reply is shown as the model writes it.
        streamModel: Boolean(trace) && io.stderr.isTTY === true,
        onEvent: (event) => {
          observe(event);
          trace?.(event);
        },
        ...(onApproval ? { onApproval } : {}),
      });
      if (args.values.json) io.stdout.write(jsonText(result));
      else if (result.state === "success" || result.state === "max_steps") {
        io.stdout.write(`${formatValue(result.output)}\n`);
      }
      if (result.state === "success") return EXIT_CODES.ok;
      if (result.state === "max_steps") return EXIT_MAX_STEPS;
      if (!args.values.json)
        stderr(
          `atrium-agent: the run ${result.state === "aborted" ? "was interrupted" : "failed"}: ${result.error?.message}\n`,
        );
      if (result.state === "aborted") return EXIT_INTERRUPTED;
      return result.error?.code === "CONFIG" ? EXIT_CODES.usage : EXIT_CODES.failed;
    } catch (error) {
      // A configuration that cannot work (a model spec, an MCP server) is the caller's to fix: 2.
      if (!(error instanceof AtriumError && error.code === "CONFIG") || error instanceof UsageError)
        throw error;
      stderr(`atrium-agent run: ${error.message}\n`);
      return EXIT_CODES.usage;
    } finally {
      process.off("SIGINT", onSigint);
      approvals.close();
      await agent?.close();
      await mcp?.close();
    }
  },
});

/** The run's settings from its options and $ATRIUM_MODEL; a mistake is a `UsageError` saying what to fix. */
function runSettings({ values, positionals }: RunArgs, env: Record<string, string | undefined>) {
  const [task, extra] = positionals;
  if (!task?.trim()) throw new UsageError('no task; use: atrium-agent run "<task>" --model <model>');
  if (extra !== undefined) {
    throw new UsageError(`unexpected argument ${JSON.stringify(extra)}; quote the task as one argument`);
  }
  const model = values.model ?? env.ATRIUM_MODEL ?? "";
  if (!model)
    throw new UsageError("no model; pass --model (e.g. --model openai:gpt-4o-mini) or set ATRIUM_MODEL");
  const agent = choiceOption(values.agent, "--agent", ["code", "tool-calling"] as const) ?? "code";
  const executor = values.executor ?? "quickjs";
  if (executor !== "quickjs") {
    throw new UsageError(
      `--executor ${JSON.stringify(executor)} is not built in; the CLI runs quickjs (other executors plug in through the CodeAgent API)`,
    );
  }
  return {
    task,
    model,
    agent,
    maxSteps: integerOption(values["max-steps"], "--max-steps", { min: 1 }),
    planningInterval: integerOption(values["planning-interval"], "--planning-interval", { min: 1 }),
  };
}

interface McpTools {
  tools: Tool[];
  close(): Promise<void>;
}

/**
 * Connects the MCP servers named by --mcp-config, --mcp and --mcp-optional. A server the user
 * asked for that cannot start fails the run (a ConfigError: exit 2); one marked optional
 * (--mcp-optional, or "optional": true in the file) is a warning.
 */
async function connectMcp({ values }: RunArgs, warn: (text: string) => void): Promise<McpTools> {
  const commandLines = [
    ...(values.mcp ?? []).map((line) => ({ line, optional: false })),
    ...(values["mcp-optional"] ?? []).map((line) => ({ line, optional: true })),
  ];
  const configFile = values["mcp-config"];
  if (!configFile && commandLines.length === 0) return { tools: [], close: async () => {} };
  const mcp = await import("@atrium/mcp");
  const servers = configFile ? await mcp.loadMcpConfigFile(configFile) : {};
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
