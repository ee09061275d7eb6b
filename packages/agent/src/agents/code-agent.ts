import {
  type CodeExecutor,
  ConfigError,
  type ExecutionError,
  type ExecutorFactory,
  ParseError,
  type SerializedError,
  serializeError,
} from "@atrium/spec";
import type { CodeDialect } from "../dialects/code-dialect.js";
import { dialectFor } from "../dialects/dialect-for.js";
import { QuickJsExecutor } from "../executors/index.js";
import { resolveAgentLoopLimits } from "../limits.js";
import { codeAgentSystemPrompt } from "../prompts/code-agent-prompt.js";
import {
  type CodeBlockFormat,
  type CodeBlockStyle,
  codeBlockFormat,
  extractCode,
  noCodeBlockMessage,
} from "./code-blocks.js";
import type { ActionStep } from "./memory-steps.js";
import { MultiStepAgent, type RunContext } from "./multi-step-agent.js";
import { codeObservation } from "./observation.js";
import type { AgentOptions } from "./run-types.js";
import { keepStepImages } from "./step-images.js";

/** Makes a sandbox; called once per agent, and once per call when the agent is a managed agent. */
export type CreateExecutor = () => CodeExecutor | Promise<CodeExecutor>;

export interface CodeAgentOptions extends AgentOptions {
  /**
   * Where the code runs: an `ExecutorFactory` or a function making executors (the default makes
   * a `QuickJsExecutor`), or one executor instance. An instance cannot be copied, so an agent
   * given one cannot be used with `asTool`. The executor's language picks the agent's dialect
   * (prompt, code blocks, tool signatures); a language without one is a `ConfigError`.
   */
  executor?: CodeExecutor | ExecutorFactory | CreateExecutor;
  /** How the model marks code: "markdown" (```js fences, the default), "xml" or custom tags. */
  codeBlockTags?: CodeBlockStyle;
  /** Wall-clock budget of one code step (default `DEFAULT_AGENT_LOOP_LIMITS.stepTimeoutMs`; checked by `resolveAgentLoopLimits`). */
  stepTimeoutMs?: number;
  /** What the sandbox allows, shown to the model; defaults suit the executor's language. */
  capabilities?: readonly string[];
}

/**
 * An agent whose actions are code: each step the model writes a code block, the sandbox runs
 * it (tools are async functions inside), and the logs, last value or error (with the failing
 * line) come back as the observation. State persists between steps like a notebook.
 */
export class CodeAgent extends MultiStepAgent {
  readonly #codeOptions: CodeAgentOptions;
  readonly #stepTimeoutMs: number;
  #executor: CodeExecutor | undefined;
  /** Whether the sandbox may hold state from earlier runs (a fresh one needs no reset). */
  #dirty = false;
  #format: CodeBlockFormat | undefined;
  #dialect: CodeDialect | undefined;
  #systemPrompt: string | undefined;

  constructor(options: CodeAgentOptions) {
    super(options);
    this.#codeOptions = options;
    this.#stepTimeoutMs = resolveAgentLoopLimits({ stepTimeoutMs: options.stepTimeoutMs }).stepTimeoutMs;
    const executor = options.executor;
    if (executor !== undefined && typeof executor !== "function") {
      if (isInstance(executor)) dialectFor(languageOf(executor));
      else if (isFactory(executor)) dialectFor(executor.capabilities.language);
      else {
        throw new ConfigError(
          "executor must be a CodeExecutor, an ExecutorFactory or a function returning a CodeExecutor",
        );
      }
    }
    if (options.codeBlockTags !== undefined) codeBlockFormat(options.codeBlockTags, "javascript");
  }

  /** The sandbox of this agent (created on first use). */
  async executor(): Promise<CodeExecutor> {
    if (this.#executor) return this.#executor;
    const given = this.#codeOptions.executor;
    const executor =
      given === undefined
        ? await QuickJsExecutor.create()
        : typeof given === "function"
          ? await given()
          : isFactory(given)
            ? await given.create()
            : given;
    let dialect: CodeDialect;
    try {
      dialect = dialectFor(languageOf(executor));
    } catch (error) {
      if (this.#ownsExecutor()) await executor.close();
      throw error;
    }
    await executor.setTools(this.instrumentedTools);
    this.#executor = executor;
    // An instance from the caller may carry state; one we just made is clean.
    this.#dirty = !this.#ownsExecutor();
    this.#dialect = dialect;
    this.#format = codeBlockFormat(this.#codeOptions.codeBlockTags ?? "markdown", dialect);
    return executor;
  }

  /** Closes the sandbox if the agent made it; an executor instance passed in stays open (it is yours). */
  override async close(): Promise<void> {
    const executor = this.#executor;
    this.#executor = undefined;
    this.#systemPrompt = undefined;
    if (this.#ownsExecutor()) await executor?.close();
  }

  #ownsExecutor(): boolean {
    const given = this.#codeOptions.executor;
    return given === undefined || !isInstance(given);
  }

  protected override fork(): CodeAgent {
    if (!this.#ownsExecutor()) {
      throw new ConfigError(
        "this CodeAgent was given one executor instance, which parallel managed-agent calls would share; pass a factory instead: executor: quickJsExecutorFactory()",
      );
    }
    return new CodeAgent(this.#codeOptions);
  }

  protected override async prepareRun(variables: Record<string, unknown> | undefined): Promise<void> {
    const executor = await this.executor();
    if (variables && Object.keys(variables).length) {
      this.#dirty = true;
      await executor.setVariables(variables);
    }
  }

  protected override async resetState(): Promise<void> {
    // A sandbox we have not made yet is clean; one passed in is adopted now so that it is reset too.
    const executor = this.#executor ?? (this.#ownsExecutor() ? undefined : await this.executor());
    if (!executor || !this.#dirty) return;
    await executor.reset();
    this.#dirty = false;
  }

  protected override systemPrompt(): string {
    if (this.#systemPrompt) return this.#systemPrompt;
    const dialect = this.#dialect!;
    const format = this.#format!;
    this.#systemPrompt = codeAgentSystemPrompt({
      language: dialect.language,
      dialect,
      tools: this.tools,
      open: format.open,
      close: format.close,
      capabilities: this.#codeOptions.capabilities ?? dialect.sandboxCapabilities,
      ...(this.instructions ? { instructions: this.instructions } : {}),
    });
    return this.#systemPrompt;
  }

  protected override async actionStep(run: RunContext): Promise<ActionStep> {
    const startedAt = Date.now();
    const started = performance.now();
    const executor = this.#executor!;
    const format = this.#format!;
    const response = await this.callModel(run, this.messagesFor(run.system), {
      stopSequences: format.stopSequences,
    });
    const usage = response.usage;
    const text = response.message.content;
    const timing = () => ({ startedAt, durationMs: performance.now() - started });
    const extracted = extractCode(text, format);
    if (!extracted) {
      const error = new ParseError(noCodeBlockMessage(format, this.#dialect!));
      return {
        type: "action",
        step: run.step,
        modelOutput: text,
        observation: `Error: ${error.message}`,
        isFinalAnswer: false,
        error: serializeError(error),
        usage,
        timing: timing(),
      };
    }
    run.emit({ type: "code", step: run.step, language: executor.language, code: extracted.code });
    this.#dirty = true;
    const result = await executor.run(extracted.code, {
      signal: run.signal,
      timeoutMs: this.#stepTimeoutMs,
      ...(run.approve ? { onApproval: run.approve, approvalTimeoutMs: run.approvalTimeoutMs } : {}),
    });
    const failed = result.error !== undefined;
    const kept = keepStepImages(result.images ?? []);
    const observation = codeObservation(result, this.maxObservationChars);
    return {
      type: "action",
      step: run.step,
      modelOutput: extracted.modelOutput,
      code: extracted.code,
      logs: result.logs,
      observation: kept.note ? `${observation}\n${kept.note}` : observation,
      ...(kept.images.length ? { images: kept.images } : {}),
      ...(result.output === undefined ? {} : { output: result.output }),
      isFinalAnswer: result.isFinalAnswer && !failed,
      ...(result.error ? { error: executionError(result.error) } : {}),
      usage,
      timing: timing(),
    };
  }
}

const ERROR_CODES: Partial<Record<ExecutionError["kind"], SerializedError["code"]>> = {
  tool: "TOOL",
  timeout: "TIMEOUT",
  memory: "LIMIT_EXCEEDED",
  "output-limit": "LIMIT_EXCEEDED",
};

function isInstance(executor: CodeExecutor | ExecutorFactory | CreateExecutor): executor is CodeExecutor {
  return (
    typeof executor === "object" && executor !== null && typeof (executor as CodeExecutor).run === "function"
  );
}

function isFactory(executor: CodeExecutor | ExecutorFactory | CreateExecutor): executor is ExecutorFactory {
  return (
    typeof executor === "object" &&
    executor !== null &&
    typeof (executor as ExecutorFactory).create === "function" &&
    typeof (executor as ExecutorFactory).capabilities?.language === "string"
  );
}

/** Executors written before capabilities existed still name their language. */
function languageOf(executor: CodeExecutor): CodeExecutor["language"] {
  return executor.capabilities?.language ?? executor.language;
}

/** A step error as memory keeps it; the observation already told the model the details. */
function executionError(error: ExecutionError): SerializedError {
  const line = error.line === undefined ? "" : ` (line ${error.line})`;
  return {
    name: error.name,
    code: ERROR_CODES[error.kind] ?? "EXECUTION",
    message: `${error.message}${line}`,
    isRetryable: false,
    isFatal: false,
  };
}
