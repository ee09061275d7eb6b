import { randomUUID } from "node:crypto";
import { CodeAgent, type CodeAgentOptions, type ImageInput, QuickJsExecutor } from "@atrium/agent";
import { docsBashTool, docsSearchTool } from "@atrium/chromafs";
import { connectMcpServers, type McpConnection, type McpServersInput } from "@atrium/mcp";
import {
  type AgentEvent,
  type ApprovalHandler,
  type Model,
  type RunState,
  rethrowIfFatal,
  type Tool,
  ValidationError,
} from "@atrium/spec";
import type { DocsLibrary, DocsUser } from "../docs/docs-library.js";
import { type DemoLimits, resolveDemoLimits } from "../limits.js";
import { type ApprovalPolicy, refuseUnasked, withApprovals } from "./approval-policy.js";
import type { AssistantEvent, DocsCommandEvent, QuestionTiming } from "./assistant-events.js";
import { pagePathsOf, readFinalAnswer, verifyCitations } from "./citations.js";
import { DOCS_INSTRUCTIONS, memoryInstructions } from "./docs-instructions.js";
import type { AssistantMemory } from "./memory-seam.js";
import { TimedModel } from "./timed-model.js";

export interface AssistantOptions {
  docs: DocsLibrary;
  model: Model;
  /** Where the agent's code runs (default: a fresh QuickJS sandbox per question). */
  executor?: CodeAgentOptions["executor"];
  /** Long-term memory (the palace, `openPalaceMemory`); without it the assistant remembers nothing. */
  memory?: AssistantMemory;
  /** MCP servers whose tools the agent may call beside the docs tools (`connectMcpServers` input). */
  mcp?: McpServersInput;
  /** Which tool calls wait for a person's yes (default "off"); see `ApprovalPolicy`. */
  approvals?: ApprovalPolicy;
  limits?: Partial<DemoLimits>;
}

export interface AskOptions {
  /** Who asks: their groups decide which pages exist for them (default: an anonymous user, no groups). */
  user?: DocsUser;
  signal?: AbortSignal;
  /** Images sent with the question to a vision model (`run(task, { images })` of the agent). */
  images?: readonly ImageInput[];
  /** Where this question's code runs, instead of the assistant's executor (the web UI's switch). */
  executor?: CodeAgentOptions["executor"];
  /** Which model answers this question, instead of the assistant's (the web UI's switch). */
  model?: Model;
  /**
   * Asks a person about each call the approval policy holds (the web UI's Approve and Deny);
   * without it such calls are refused, saying where they could be approved. A call with no
   * answer within `approvalTimeoutMs` is refused and the run goes on.
   */
  onApproval?: ApprovalHandler;
  /** How long a call waits for that answer (default: the assistant's `approvalTimeoutMs`). */
  approvalTimeoutMs?: number;
}

export interface Assistant {
  readonly model: Model;
  /** Names of the tools the agent gets: the docs tools first, then memory tools, then MCP tools. */
  readonly toolNames: readonly string[];
  /** The memory it was given (the web UI's memory panel reads it), if any. */
  readonly memory: AssistantMemory | undefined;
  /** Per-server MCP failures (servers marked optional that did not connect). */
  readonly mcpErrors: readonly Error[];
  /** Which tool calls wait for approval. */
  readonly approvals: ApprovalPolicy;
  /**
   * Asks one question. Yields the agent's `AgentEvent`s as they happen, with `question`,
   * `docs-command` (each shell command over the docs, with its output) and memory events woven
   * in, and always ends with one `answer` event (answer, cited pages, where the time went).
   * Leaving the loop early aborts the question.
   */
  ask(question: string, options?: AskOptions): AsyncGenerator<AssistantEvent, void, undefined>;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const ANONYMOUS: DocsUser = { id: "anonymous", groups: [] };

/** The composed assistant: docs through ChromaFs, code in a sandbox, optional MCP tools and memory. */
export async function createAssistant(options: AssistantOptions): Promise<Assistant> {
  const limits = resolveDemoLimits(options.limits);
  const mcp: McpConnection | undefined = options.mcp ? await connectMcpServers(options.mcp) : undefined;
  const mcpTools: readonly Tool[] = mcp?.tools ?? [];
  const executor = options.executor ?? (() => QuickJsExecutor.create());
  const approvals = options.approvals ?? "off";
  const DOCS_TOOLS = ["bash", "search"];
  const memoryTools = options.memory?.toolNames ?? [];
  const clash = mcpTools.find((t) => DOCS_TOOLS.includes(t.name) || memoryTools.includes(t.name));
  if (clash) {
    await mcp?.close();
    throw new ValidationError("assistant", [
      {
        path: ["mcp"],
        message: `an MCP server offers a tool named "${clash.name}", which the ${DOCS_TOOLS.includes(clash.name) ? "docs" : "memory"} tools use; give that server another name so its tools get a prefix, or leave it out`,
      },
    ]);
  }

  async function* ask(question: string, askOptions: AskOptions = {}): AsyncGenerator<AssistantEvent> {
    const trimmed = question.trim();
    if (!trimmed || trimmed.length > limits.maxQuestionChars) {
      throw new ValidationError("assistant", [
        {
          path: ["question"],
          message: trimmed
            ? `the question has ${trimmed.length} characters, over the limit of ${limits.maxQuestionChars}; shorten it`
            : "the question is empty; ask something about the docs",
        },
      ]);
    }
    const user = askOptions.user ?? ANONYMOUS;
    const controller = new AbortController();
    const signal = askOptions.signal
      ? AbortSignal.any([askOptions.signal, controller.signal])
      : controller.signal;
    const started = performance.now();
    const chosenModel = askOptions.model ?? options.model;
    const model = new TimedModel(chosenModel);
    const timing: QuestionTiming = { retrievalMs: 0, memoryMs: 0, executionMs: 0, modelMs: 0, totalMs: 0 };
    yield { type: "question", question: trimmed, user: user.id, model: chosenModel.id };

    const askedAt = new Date().toISOString();
    // The memory's guide goes in the instructions; what it holds comes through the agent's
    // long-term memory, which reads it before the first step and quotes it as data.
    const instructions = options.memory
      ? `${DOCS_INSTRUCTIONS}\n\n${memoryInstructions(options.memory.guide(user))}`
      : DOCS_INSTRUCTIONS;

    const session = await options.docs.openSession(user);
    const tools = [
      docsBashTool(session),
      docsSearchTool(options.docs.store, session.access),
      ...withApprovals(options.memory?.tools(user) ?? [], approvals),
      ...mcpTools,
    ];
    const agent = new CodeAgent({
      model,
      tools,
      executor: askOptions.executor ?? executor,
      instructions,
      ...(options.memory ? { longTermMemory: options.memory.longTermMemory(user) } : {}),
      maxSteps: limits.maxSteps,
      stepTimeoutMs: limits.stepTimeoutMs,
      onApproval: askOptions.onApproval ?? refuseUnasked,
      approvalTimeoutMs: askOptions.approvalTimeoutMs ?? limits.approvalTimeoutMs,
    });
    const seen = new Set<string>();
    const calls = new Map<string, { command: string; started: number }>();
    const memoryCalls = new Map<string, { name: string; input: unknown; started: number }>();
    // Memory tool calls, like docs calls, run inside the code's time: the wall time while any runs.
    let memoryActive = 0;
    let memorySince = 0;
    let memoryToolMs = 0;
    const stepTexts: { step: number; text: string; at: string }[] = [];
    let codeStarted: number | undefined;
    // Docs calls may overlap (Promise.all in the code): retrieval is the wall time while any runs.
    let docsActive = 0;
    let docsSince = 0;
    let output: unknown;
    let state: RunState = "error";
    let steps = 0;
    try {
      for await (const event of agent.stream(trimmed, { signal, images: askOptions.images })) {
        if (event.type === "memory-recalled") {
          // The agent's recall before the question, in the demo's own event (its trace shows it).
          timing.memoryMs += event.durationMs;
          yield {
            type: "memory-recalled",
            via: "question",
            memories: event.memories,
            durationMs: event.durationMs,
          };
          continue;
        }
        if (event.type === "memory-filed") continue; // runs are not filed (fileRuns: false)
        yield event;
        const now = performance.now();
        switch (event.type) {
          case "model-output":
            stepTexts.push({ step: event.step, text: event.text, at: new Date().toISOString() });
            break;
          case "code":
            codeStarted = now;
            break;
          case "observation":
            if (codeStarted !== undefined) timing.executionMs += now - codeStarted;
            codeStarted = undefined;
            break;
          case "tool-call":
            if (memoryTools.includes(event.name)) {
              if (memoryActive++ === 0) memorySince = now;
              memoryCalls.set(event.id, { name: event.name, input: event.input, started: now });
            }
            if (event.name === "bash" || event.name === "search") {
              if (docsActive++ === 0) docsSince = now;
            }
            if (event.name === "bash") {
              calls.set(event.id, {
                command: String((event.input as { command?: unknown })?.command ?? ""),
                started: now,
              });
            } else if (event.name === "search") {
              calls.set(event.id, {
                command: `search ${JSON.stringify((event.input as { query?: unknown })?.query ?? "")}`,
                started: now,
              });
            }
            break;
          case "tool-result": {
            const memoryCall = memoryCalls.get(event.id);
            if (memoryCall && options.memory) {
              memoryCalls.delete(event.id);
              if (--memoryActive === 0) memoryToolMs += now - memorySince;
              const memoryEvent = event.error
                ? undefined
                : options.memory.eventFor(
                    { name: memoryCall.name, input: memoryCall.input, output: event.output },
                    now - memoryCall.started,
                  );
              if (memoryEvent) yield memoryEvent;
              break;
            }
            const call = calls.get(event.id);
            if (!call) break;
            calls.delete(event.id);
            const durationMs = now - call.started;
            if (--docsActive === 0) timing.retrievalMs += now - docsSince;
            const docsEvent = docsCommandEvent(event, call.command, durationMs, limits.maxTraceOutputChars);
            for (const path of pagePathsOf(call.command, fullStdout(event.output), docsEvent.exitCode))
              seen.add(path);
            yield docsEvent;
            break;
          }
          case "run-end":
            output = event.output;
            state = event.state;
            steps = event.steps;
            break;
        }
      }
    } finally {
      await agent.close();
      await session.close();
    }
    timing.modelMs = model.elapsedMs;
    timing.memoryMs += memoryToolMs;
    // Tool calls happen inside the code's run: the sandbox's own share is what is left.
    timing.executionMs = Math.max(0, timing.executionMs - timing.retrievalMs - memoryToolMs);
    const { answer, sources } =
      state === "success" || state === "max_steps" ? readFinalAnswer(output) : { answer: "", sources: [] };

    if (options.memory && answer) {
      const began = performance.now();
      const sessionId = `${askedAt.replace(/[-:.]/g, "")}-${randomUUID().slice(0, 8)}`;
      try {
        const filed = await options.memory.file(
          {
            sessionId,
            user,
            question: trimmed,
            askedAt,
            steps: stepTexts,
            answer,
            answeredAt: new Date().toISOString(),
            sources,
          },
          signal,
        );
        const durationMs = performance.now() - began;
        timing.memoryMs += durationMs;
        yield { type: "memory-filed", via: "transcript", ids: filed.ids, sessionId, durationMs };
      } catch (error) {
        // The answer stands even when filing it failed; the failure is shown, not hidden.
        rethrowIfFatal(error);
        timing.memoryMs += performance.now() - began;
        yield {
          type: "error",
          error: {
            name: "MemoryError",
            code: "UNKNOWN",
            message: `could not file this exchange in memory: ${(error as Error).message}`,
            isRetryable: true,
            isFatal: false,
          },
        };
      }
    }
    timing.totalMs = performance.now() - started;
    yield { type: "answer", state, answer, citations: verifyCitations(sources, seen), steps, timing };
  }

  const assistant: Assistant = {
    model: options.model,
    toolNames: ["bash", "search", ...memoryTools, ...mcpTools.map((t) => t.name)],
    memory: options.memory,
    mcpErrors: mcp?.errors.map((failure) => failure.error) ?? [],
    approvals,
    ask,
    async close() {
      await Promise.allSettled([mcp?.close(), options.memory?.close?.()]);
    },
    [Symbol.asyncDispose]() {
      return assistant.close();
    },
  };
  return assistant;
}

function fullStdout(output: unknown): string {
  return typeof (output as { stdout?: unknown })?.stdout === "string"
    ? (output as { stdout: string }).stdout
    : typeof output === "string"
      ? output
      : "";
}

function docsCommandEvent(
  event: AgentEvent & { type: "tool-result" },
  command: string,
  durationMs: number,
  maxChars: number,
): DocsCommandEvent {
  const result = (event.output ?? {}) as { stdout?: unknown; stderr?: unknown; exitCode?: unknown };
  const stdout = fullStdout(event.output);
  return {
    type: "docs-command",
    step: event.step,
    command,
    stdout: stdout.length > maxChars ? `${stdout.slice(0, maxChars)}…` : stdout,
    stdoutChars: stdout.length,
    stderr: event.error ?? (typeof result.stderr === "string" ? result.stderr : ""),
    exitCode: typeof result.exitCode === "number" ? result.exitCode : event.error ? 1 : 0,
    durationMs,
  };
}
