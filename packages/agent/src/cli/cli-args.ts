import { parseArgs } from "node:util";
import { ConfigError } from "@atrium/spec";

export const USAGE = `Usage: atrium-agent run "<task>" --model <model> [options]
       atrium-agent doctor [--json]

run: runs an agent on a task and prints its step trace and answer.
doctor: says which sandbox isolations this host can run: QuickJS in a worker thread, and the
OS sandbox (bubblewrap) that Python uses by default and QuickJS with isolation "process".

Options:
  --model <string>          the model, e.g. openai:gpt-4o-mini, anthropic:claude-sonnet-4-5,
                            ollama:llama3.2, openai-compatible:<baseURL>#<model>, scripted:<file.json>
                            (default: $ATRIUM_MODEL)
  --agent <code|tool-calling>  code actions in a sandbox (default) or native tool calls
  --executor <quickjs>      the sandbox for code actions (default: quickjs)
  --image <path|url>        send an image with the task (repeatable)
  --max-steps <n>           action steps before the closing answer call (default: 20)
  --planning-interval <n>   plan before step 1 and every n steps
  --mcp-config <file>       MCP servers file ({ "mcpServers": { ... } }); their tools join the agent
  --mcp "<command line>"    an MCP server command line or URL (repeatable); the run fails
                            (exit 2) when it cannot start
  --mcp-optional "<command line>"  the same, but a server that cannot start is only a warning
                            (in a config file: "optional": true)
  --json                    print the RunResult as JSON on stdout instead of the answer
  --quiet                   no step trace on stderr
  -h, --help                this help
  -v, --version             the version

Exit codes: 0 answered, 2 bad usage or configuration, 3 answered after max steps,
1 the run failed, 130 interrupted.`;

export interface CliArgs {
  command: "run" | "doctor" | "help" | "version";
  task: string;
  model: string;
  agent: "code" | "tool-calling";
  executor: "quickjs";
  images: string[];
  maxSteps: number | undefined;
  planningInterval: number | undefined;
  mcpConfig: string | undefined;
  mcp: string[];
  mcpOptional: string[];
  json: boolean;
  quiet: boolean;
}

/** Parses argv (without node and the script); bad input throws a ConfigError saying what to fix. */
export function parseCliArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}\nRun atrium-agent --help for the options.`);
  }
  const { values, positionals } = parsed;
  const base = {
    task: "",
    model: "",
    agent: "code" as const,
    executor: "quickjs" as const,
    images: [],
    maxSteps: undefined,
    planningInterval: undefined,
    mcpConfig: undefined,
    mcp: [],
    mcpOptional: [],
    json: false,
    quiet: false,
  };
  if (values.help) return { ...base, command: "help" };
  if (values.version) return { ...base, command: "version" };
  const [command, task, ...extra] = positionals;
  if (command === "doctor") {
    if (task !== undefined)
      throw new ConfigError(`unexpected argument ${JSON.stringify(task)}; doctor takes none`);
    return { ...base, command: "doctor", json: values.json ?? false };
  }
  if (command !== "run") {
    throw new ConfigError(
      command === undefined
        ? 'no command; use: atrium-agent run "<task>" --model <model>'
        : `unknown command ${JSON.stringify(command)}; the commands are "run" and "doctor"`,
    );
  }

  if (!task?.trim()) throw new ConfigError('no task; use: atrium-agent run "<task>" --model <model>');
  if (extra.length) {
    throw new ConfigError(`unexpected argument ${JSON.stringify(extra[0])}; quote the task as one argument`);
  }
  const model = values.model ?? env.ATRIUM_MODEL ?? "";
  if (!model)
    throw new ConfigError("no model; pass --model (e.g. --model openai:gpt-4o-mini) or set ATRIUM_MODEL");
  const agent = values.agent ?? "code";
  if (agent !== "code" && agent !== "tool-calling") {
    throw new ConfigError(`--agent must be "code" or "tool-calling", got ${JSON.stringify(agent)}`);
  }
  const executor = values.executor ?? "quickjs";
  if (executor !== "quickjs") {
    throw new ConfigError(
      `--executor ${JSON.stringify(executor)} is not built in; the CLI runs quickjs (other executors plug in through the CodeAgent API)`,
    );
  }
  return {
    command: "run",
    task,
    model,
    agent,
    executor,
    images: values.image ?? [],
    maxSteps: count("--max-steps", values["max-steps"]),
    planningInterval: count("--planning-interval", values["planning-interval"]),
    mcpConfig: values["mcp-config"],
    mcp: values.mcp ?? [],
    mcpOptional: values["mcp-optional"] ?? [],
    json: values.json ?? false,
    quiet: values.quiet ?? false,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      model: { type: "string" },
      agent: { type: "string" },
      executor: { type: "string" },
      image: { type: "string", multiple: true },
      "max-steps": { type: "string" },
      "planning-interval": { type: "string" },
      "mcp-config": { type: "string" },
      mcp: { type: "string", multiple: true },
      "mcp-optional": { type: "string", multiple: true },
      json: { type: "boolean" },
      quiet: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

function count(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new ConfigError(`${flag} must be a positive whole number, got ${JSON.stringify(value)}`);
  return n;
}
