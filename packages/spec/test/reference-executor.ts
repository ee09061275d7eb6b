import vm from "node:vm";
import {
  AbortError,
  type ApprovalDecision,
  type ApprovalRequest,
  ClosedError,
  type CodeExecutor,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type ExecutionResult,
  ExecutorBusyError,
  type ExecutorCapabilities,
  type ExecutorFactory,
  type ExecutorRunOptions,
  type ImagePart,
  isRichToolResult,
  type Tool,
} from "../src/index.js";

/**
 * A small but correct JavaScript `CodeExecutor` on Node's `vm`, used only to prove the contract
 * suite passes on a right implementation. Not a sandbox: `vm` is no security boundary.
 * Top-level `await` runs inside an async function, with `const/let` hoisted to globals the way
 * Node's REPL does it (by a line-based rewrite that is enough for the suite's snippets).
 */
export class ReferenceExecutor implements CodeExecutor {
  readonly language = "javascript" as const;
  readonly capabilities: ExecutorCapabilities = REFERENCE_CAPABILITIES;
  private context!: vm.Context;
  private tools: readonly Tool[] = [];
  private closed = false;
  private logs = "";
  private images: ImagePart[] = [];
  private final: { value: unknown } | undefined;
  private running = false;
  /** The run under way's options: who answers its approvals, and its signal. */
  private options: ExecutorRunOptions = {};
  private calls = 0;

  constructor() {
    this.createContext();
  }

  private createContext(): void {
    this.context = vm.createContext({});
    const host = {
      log: (...args: unknown[]) => {
        this.logs += `${args.map(String).join(" ")}\n`;
      },
      final: (value: unknown) => {
        this.final = { value };
        throw new FinalAnswerSignal();
      },
      call: async (name: string, input: unknown) => {
        const tool = this.tools.find((t) => t.name === name)!;
        // Plain data, as every real executor hands it over (not an object of the vm's realm).
        input = JSON.parse(JSON.stringify(input ?? null));
        const toolCallId = `ref-${++this.calls}`;
        const needs =
          typeof tool.needsApproval === "function"
            ? await tool.needsApproval(input, { toolCallId })
            : tool.needsApproval === true;
        if (needs) {
          const decision = await this.ask({ toolCallId, toolName: name, input });
          if (!decision.approved) {
            const reason = decision.reason ? `: ${decision.reason}` : "";
            throw Object.assign(new Error(`Tool "${name}" was not approved${reason}`), { fromTool: true });
          }
        }
        try {
          const output = await tool.execute(input, { signal: new AbortController().signal });
          if (!isRichToolResult(output)) return output;
          this.images.push(...(output.images ?? []));
          return output.value;
        } catch (error) {
          throw Object.assign(new Error((error as Error).message), { fromTool: true });
        }
      },
    };
    vm.runInContext(
      "(host) => { globalThis.console = { log: host.log }; globalThis.final_answer = host.final; globalThis.__call = host.call; }",
      this.context,
    )(host);
    this.installTools();
  }

  /** Asks the run's handler, within `approvalTimeoutMs`; the run's abort ends the wait. */
  private async ask(request: ApprovalRequest): Promise<ApprovalDecision> {
    const { onApproval, signal, approvalTimeoutMs = DEFAULT_APPROVAL_TIMEOUT_MS } = this.options;
    if (!onApproval) {
      return {
        approved: false,
        reason:
          "it needs approval and no one was asked (give the run an onApproval handler, or run the CLI with --approve)",
      };
    }
    const waiting = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => waiting.abort(new AbortError());
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await new Promise<ApprovalDecision>((resolve, reject) => {
        timer = setTimeout(() => {
          resolve({
            approved: false,
            reason: `no answer came within ${approvalTimeoutMs} ms (approvalTimeoutMs)`,
          });
          waiting.abort(new AbortError());
        }, approvalTimeoutMs);
        waiting.signal.addEventListener("abort", () => reject(new AbortError()), { once: true });
        Promise.resolve(onApproval(request, waiting.signal)).then((answer) => {
          resolve("approved" in answer ? answer : { approved: false, reason: "suspended" });
        }, reject);
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if (!waiting.signal.aborted) waiting.abort(new AbortError());
    }
  }

  private installTools(): void {
    for (const tool of this.tools) {
      vm.runInContext(
        `globalThis.${tool.name} = (input) => __call(${JSON.stringify(tool.name)}, input)`,
        this.context,
      );
    }
  }

  async run(code: string, options: ExecutorRunOptions = {}): Promise<ExecutionResult> {
    if (this.closed) throw new ClosedError("ReferenceExecutor");
    if (this.running) throw new ExecutorBusyError("run()");
    if (options.signal?.aborted) throw new AbortError();
    this.running = true;
    this.options = options;
    try {
      return await this.runNow(code, options);
    } finally {
      this.running = false;
    }
  }

  private async runNow(code: string, options: ExecutorRunOptions): Promise<ExecutionResult> {
    this.logs = "";
    this.images = [];
    this.final = undefined;
    const started = performance.now();
    const finish = (partial: Partial<ExecutionResult>): ExecutionResult => ({
      output: undefined,
      logs: this.logs,
      isFinalAnswer: false,
      images: this.images,
      durationMs: performance.now() - started,
      ...partial,
    });
    // vm can only stop synchronous code through its own timeout, so a run given a signal gets a
    // 150 ms slice and reports an abort if it overruns it. Enough for the suite, not for real use.
    const abortAfter = options.signal ? 150 : undefined;
    const budget = Math.min(options.timeoutMs ?? 10_000, abortAfter ?? Number.POSITIVE_INFINITY);
    try {
      const source = /\bawait\b/.test(code) ? asyncWrapper(code) : code;
      const script = new vm.Script(source, { filename: "step.js" });
      let value = script.runInContext(this.context, { timeout: budget });
      if (/\bawait\b/.test(code)) value = await untilAborted(value, options.signal);
      if (this.final) return finish({ output: this.final.value, isFinalAnswer: true });
      return finish({ output: plain(value) });
    } catch (error) {
      if (options.signal?.aborted) throw new AbortError();
      if (error instanceof FinalAnswerSignal || this.final) {
        return finish({ output: this.final?.value, isFinalAnswer: true });
      }
      const err = error as Error & { code?: string; fromTool?: boolean; stack?: string };
      if (err.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") {
        if (options.signal) throw new AbortError();
        return finish({
          error: { kind: "timeout", name: "TimeoutError", message: `timed out after ${budget} ms` },
        });
      }
      if (err.name === "SyntaxError") {
        return finish({ error: { kind: "syntax", name: "SyntaxError", message: err.message } });
      }
      const line = /step\.js:(\d+)/.exec(err.stack ?? "")?.[1];
      return finish({
        error: {
          kind: err.fromTool ? "tool" : "runtime",
          name: err.name,
          message: err.message,
          ...(line ? { line: Number(line) } : {}),
        },
      });
    }
  }

  setTools(tools: readonly Tool[]): void {
    this.tools = tools;
    this.installTools();
  }

  setVariables(variables: Record<string, unknown>): void {
    for (const [name, value] of Object.entries(variables)) {
      this.context[name] = JSON.parse(JSON.stringify(value));
    }
  }

  async reset(): Promise<void> {
    this.createContext();
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** `vm` is no boundary: guest code can escape to the host, and so to its network. */
const REFERENCE_CAPABILITIES: ExecutorCapabilities = Object.freeze({
  language: "javascript",
  persistentState: true,
  tools: true,
  isolation: "in-process",
  network: "full",
});

export const referenceExecutorFactory: ExecutorFactory = {
  capabilities: REFERENCE_CAPABILITIES,
  async create() {
    return new ReferenceExecutor();
  },
};

class FinalAnswerSignal extends Error {}

function asyncWrapper(code: string): string {
  const lines = code
    .split("\n")
    .map((line) =>
      line
        .replace(/^(const|let|var)\s+(\w+)\s*=/, "globalThis.$2 =")
        .replace(/^let (\w+);$/, "globalThis.$1 = undefined;"),
    );
  const last = lines.length - 1;
  lines[last] = `return (${lines[last]});`;
  return `(async () => {\n${lines.join("\n")}\n})()`;
}

function plain(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** `value`, or an AbortError as soon as `signal` aborts (an await the abort must end). */
function untilAborted<T>(value: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return value;
  return Promise.race([
    value,
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(new AbortError());
      signal.addEventListener("abort", () => reject(new AbortError()), { once: true });
    }),
  ]);
}
