import { parseArgs } from "node:util";
import { ConfigError } from "@atrium/spec";
import { APPROVAL_POLICIES, type ApprovalPolicy } from "../assistant/approval-policy.js";

export interface DemoArgs {
  help: boolean;
  questions: string[];
  eval: boolean;
  evalFile?: string;
  json: boolean;
  user: string;
  groups: string[];
  /** Run without the palace: nothing recalled, nothing filed. */
  memory: boolean;
  mcp: string[];
  corpus?: string;
  data?: string;
  /** Serve the web UI instead of asking on the command line. */
  web: boolean;
  /** Where the agent's code runs: an executor id of `executorChoices()` (default quickjs). */
  executor?: string;
  port?: number;
  host?: string;
  /** The whole step trace (every command, the code, each observation) instead of ≤ 20 lines a question. */
  verbose: boolean;
  /** Which tool calls wait for a person's yes (`--approve memory-writes`; default off). */
  approvals: ApprovalPolicy;
}

export const USAGE = `Usage: npm run demo -- [options]

  (no option)            ask a few questions about the Mintlify docs and print the step trace
  --question, -q TEXT    ask this question instead (repeatable)
  --eval                 run the docs evaluation (eval/docs-questions.json): answer and citation accuracy
  --eval-file PATH       evaluate with another questions file (same format)
  --json                 with --eval: print the report as JSON
  --verbose              the whole step trace (code, every docs command and its output, each
                         observation); without it at most 20 lines a question
  --user NAME            who asks (default: demo); their memories live in the palace wing of that name
  --no-memory            run without memory (the palace in apps/demo/.atrium/palace is not opened)
  --groups a,b           the user's access groups: pages restricted to other groups stay hidden
  --mcp "CMD ARGS"|URL   an MCP server whose tools the agent may call (repeatable), e.g.
                         --mcp "npx -y @modelcontextprotocol/server-everything"
  --corpus DIR           another folder of .md/.mdx pages (default: fixtures/corpora/mintlify-docs)
  --data DIR             where Chroma keeps its data (default: apps/demo/.atrium)
  --executor ID          where the agent's code runs: quickjs (JavaScript, the default), python
                         (Python in Pyodide) or microvm (Python in a QEMU micro-VM, where the host
                         has QEMU and a kernel); the model writes that language
  --web                  serve the web UI (chat, live step trace, image upload) and print its URL
  --approve WHAT         memory-writes: memory writes (remember, kg_add, diary_write) wait for
                         your Approve or Deny in the web UI's trace; with no answer in 2 minutes
                         (approvalTimeoutMs) the call is refused and the answer goes on. Without
                         --web nobody can be asked, so such calls are refused, saying why.
                         off (the default): nothing asks
  --port N               with --web: the port (default: a free one)
  --host ADDRESS         with --web: the address to listen on (default 127.0.0.1, loopback only)
  --help, -h             this text

Environment: ATRIUM_MODEL=openai:gpt-4o-mini | anthropic:… | ollama:… | openai-compatible:URL#model
(and the provider's key); without it a scripted model answers, and says so.`;

/** Parses the command line; a mistake is a `ConfigError` whose message says what to change. */
export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let parsed: ReturnType<typeof parse>;
  // `npm run demo -- -- --help` was the way past pnpm (which took `--help` for itself); the root
  // script no longer goes through pnpm, and a second `--` from habit or old notes is dropped.
  const args = argv[0] === "--" ? argv.slice(1) : argv;
  try {
    parsed = parse(args);
  } catch (error) {
    throw new ConfigError(`${parseErrorMessage(error as Error)}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 0) {
    throw new ConfigError(
      `unexpected argument ${JSON.stringify(positionals[0])}; put a question after --question\n\n${USAGE}`,
    );
  }
  const questions = (values.question ?? []).map((q) => q.trim());
  if (questions.some((q) => q === "")) throw new ConfigError("--question needs a non-empty question");
  if (values.eval && questions.length > 0)
    throw new ConfigError("--eval and --question do not go together; pick one");
  if (values["eval-file"] !== undefined && !values.eval)
    throw new ConfigError("--eval-file goes with --eval");
  if (values.web && (values.eval || questions.length > 0))
    throw new ConfigError("--web serves the page where questions are asked; leave out --eval and --question");
  if (values.executor !== undefined && values.web)
    throw new ConfigError("--executor goes with questions; the web page has its own executor switch");
  if ((values.port !== undefined || values.host !== undefined) && !values.web)
    throw new ConfigError("--port and --host go with --web");
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535))
    throw new ConfigError(
      `--port ${JSON.stringify(values.port)} is not a port; give 0..65535 (0: a free one)`,
    );
  const approvals = values.approve?.trim() ?? "off";
  if (!(APPROVAL_POLICIES as readonly string[]).includes(approvals))
    throw new ConfigError(
      `--approve ${JSON.stringify(values.approve)} is not a policy; give ${APPROVAL_POLICIES.join(" or ")}, e.g. --approve memory-writes`,
    );
  if (values.host !== undefined && values.host.trim() === "")
    throw new ConfigError("--host needs an address such as 127.0.0.1");
  return {
    help: values.help ?? false,
    questions,
    eval: values.eval ?? false,
    evalFile: values["eval-file"],
    json: values.json ?? false,
    user: checkUser(values.user ?? "demo"),
    memory: !(values["no-memory"] ?? false),
    groups: (values.groups ?? "")
      .split(",")
      .map((g) => g.trim())
      .filter(Boolean),
    mcp: values.mcp ?? [],
    corpus: values.corpus,
    data: values.data,
    web: values.web ?? false,
    executor: values.executor?.trim(),
    port,
    host: values.host?.trim(),
    verbose: values.verbose ?? false,
    approvals: approvals as ApprovalPolicy,
  };
}

/**
 * Node's words for an unknown option advise putting it after `--` as a positional, which this
 * command line does not take: it gets the demo's own words instead.
 */
function parseErrorMessage(error: Error & { code?: string }): string {
  const option = /^Unknown option '([^']*)'/.exec(error.message)?.[1];
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option !== undefined)
    return `unknown option ${JSON.stringify(option)}; the options are below (--help prints them)`;
  return error.message;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: "boolean", short: "h" },
      question: { type: "string", short: "q", multiple: true },
      eval: { type: "boolean" },
      "eval-file": { type: "string" },
      json: { type: "boolean" },
      user: { type: "string" },
      "no-memory": { type: "boolean" },
      groups: { type: "string" },
      mcp: { type: "string", multiple: true },
      corpus: { type: "string" },
      data: { type: "string" },
      web: { type: "boolean" },
      executor: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      verbose: { type: "boolean" },
      approve: { type: "string" },
    },
  });
}

/** A user id names a palace wing: visible text, not too long. */
function checkUser(user: string): string {
  const trimmed = user.trim();
  if (trimmed === "" || trimmed.length > 200 || /[\u0000-\u001f]/.test(trimmed))
    throw new ConfigError("--user needs a name of 1 to 200 visible characters, e.g. --user alice");
  return trimmed;
}
