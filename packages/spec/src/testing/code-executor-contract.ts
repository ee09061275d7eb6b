import assert from "node:assert/strict";
import type { ApprovalHandler, ApprovalRequest } from "../approval.js";
import {
  type CodeExecutor,
  type CodeLanguage,
  EXECUTOR_ISOLATIONS,
  EXECUTOR_NETWORKS,
  type ExecutionResult,
  type ExecutorFactory,
  type StepJournal,
} from "../code-executor.js";
import { AtriumError, ExecutorBusyError, ReplayMismatchError, ToolError } from "../errors.js";
import type { ImagePart } from "../messages.js";
import { richToolResult, type Tool } from "../tool.js";
import { type Contract, type ContractCase, within, withSubject } from "./contract.js";

/** The code each case runs, in the executor's language. */
export interface CodeSnippets {
  /** Evaluates to the number 42. */
  lastValue: string;
  /** Defines a variable `x` = 41 the way a model would (`const` in JS). */
  defineX: string;
  /** Evaluates to x + 1. */
  readX: string;
  /** Defines a function `bump(n)` returning n + 1. */
  defineBump: string;
  /** Evaluates to bump(x). */
  callBump: string;
  /** Prints `hello 1` followed by a newline. */
  printHello: string;
  /** Calls final_answer("done"), then prints "after" (which must not run). */
  finalAnswer: string;
  /** Line 1 is fine, line 2 raises an error whose message contains "boom". */
  throwOnLine2: string;
  /** Not valid code. */
  syntaxError: string;
  /** Prints "before", then raises. */
  printThenThrow: string;
  /** Calls tool `add` with a=2, b=3 and evaluates to its result. */
  callAdd: string;
  /** Calls tool `fail` (which raises "nope") without catching. */
  callFail: string;
  /** Calls tool `fail`, catches, and evaluates to "caught: " + the error message. */
  catchFail: string;
  /** Calls tool `snapshot` (which returns an image) and evaluates to its value. */
  callSnapshot: string;
  /** Evaluates to greeting + String(data.n), from variables set by the host. */
  readVariables: string;
  /** Loops forever. */
  infiniteLoop: string;
  /** Evaluates to an object { a: [1, "two", null] }. */
  jsonValue: string;
  /** Calls tool `guarded` (it needs approval) with n=7 and evaluates to its result. */
  callGuarded: string;
  /** Calls `guarded` with n=7, catches, and evaluates to "caught: " + the error message. */
  catchGuarded: string;
  /**
   * Calls `guarded` (n=7) and `add` (a=2, b=3) at once and evaluates to [guarded's, add's];
   * absent in a language whose tool calls block the code (one call at a time).
   */
  parallelGuarded?: string;
}

export const CODE_SNIPPETS: Partial<Record<CodeLanguage, CodeSnippets>> = {
  javascript: {
    lastValue: "40 + 2",
    defineX: "const x = 41",
    readX: "x + 1",
    defineBump: "function bump(n) {\n  return n + 1;\n}",
    callBump: "bump(x)",
    printHello: 'console.log("hello", 1)',
    finalAnswer: 'final_answer("done");\nconsole.log("after");',
    throwOnLine2: 'const a = 1;\nthrow new Error("boom");',
    syntaxError: "const = ;",
    printThenThrow: 'console.log("before");\nthrow new Error("later");',
    callAdd: "await add({ a: 2, b: 3 })",
    callFail: "await fail({})",
    catchFail: 'let caught;\ntry { await fail({}) } catch (e) { caught = "caught: " + e.message }\ncaught',
    callSnapshot: "await snapshot({})",
    readVariables: "greeting + String(data.n)",
    infiniteLoop: "while (true) {}",
    jsonValue: '({ a: [1, "two", null] })',
    callGuarded: "await guarded({ n: 7 })",
    catchGuarded:
      'let caught;\ntry { await guarded({ n: 7 }) } catch (e) { caught = "caught: " + e.message }\ncaught',
    parallelGuarded: "await Promise.all([guarded({ n: 7 }), add({ a: 2, b: 3 })])",
  },
  python: {
    lastValue: "40 + 2",
    defineX: "x = 41",
    readX: "x + 1",
    defineBump: "def bump(n):\n    return n + 1",
    callBump: "bump(x)",
    printHello: 'print("hello", 1)',
    finalAnswer: 'final_answer("done")\nprint("after")',
    throwOnLine2: 'a = 1\nraise ValueError("boom")',
    syntaxError: "x = = 1",
    printThenThrow: 'print("before")\nraise ValueError("later")',
    callAdd: "add(a=2, b=3)",
    callFail: "fail()",
    catchFail:
      'try:\n    fail()\n    caught = None\nexcept Exception as e:\n    caught = "caught: " + str(e)\ncaught',
    callSnapshot: "snapshot()",
    readVariables: 'greeting + str(data["n"])',
    infiniteLoop: "while True:\n    pass",
    jsonValue: '{"a": [1, "two", None]}',
    callGuarded: "guarded(n=7)",
    catchGuarded:
      'try:\n    guarded(n=7)\n    caught = None\nexcept Exception as e:\n    caught = "caught: " + str(e)\ncaught',
  },
};

export interface CodeExecutorContractOptions {
  /** Overrides (or supplies, for a language without built-ins) the code snippets. */
  snippets?: Partial<CodeSnippets>;
  /** Time budget given to runs that must time out (default 300 ms). */
  timeoutMs?: number;
  /** How long a run that must be interrupted may take to return (default 5 s). */
  interruptWithinMs?: number;
}

export const PIXEL_PNG: ImagePart = {
  type: "image",
  mediaType: "image/png",
  image: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
};

/**
 * The tools every case installs: add, fail (raises "nope"), snapshot (returns an image), and
 * guarded (needs approval; returns "ran " + n). `calls` counts each tool's executions.
 */
export function contractTools(calls: Record<string, number> = {}): Tool[] {
  const count = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const objectSchema = { type: "object", additionalProperties: true };
  return [
    {
      name: "add",
      description: "Adds a and b.",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      async execute(input: { a: number; b: number }) {
        count("add");
        return input.a + input.b;
      },
    },
    {
      name: "fail",
      description: "Always fails.",
      inputSchema: objectSchema,
      async execute() {
        throw new ToolError("fail", "nope");
      },
    },
    {
      name: "snapshot",
      description: "Returns a one-pixel image.",
      inputSchema: objectSchema,
      async execute() {
        return richToolResult("pixel", [PIXEL_PNG]);
      },
    },
    {
      name: "guarded",
      description: "Returns 'ran ' + n; every call needs approval.",
      inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      needsApproval: true,
      async execute(input: { n: number }) {
        count("guarded");
        return `ran ${input.n}`;
      },
    },
  ];
}

/**
 * The behaviour every `CodeExecutor` promises (see its contract in `@atrium/spec`): declared
 * capabilities, notebook state, logs, final answers, errors as values with the failing line,
 * tools, variables, reset, time limits that leave the executor usable, aborts, runs that never
 * overlap (a second one is refused with `ExecutorBusyError`), and close.
 * Given an `ExecutorFactory`, it also checks that the factory declares what its executors do.
 */
export function codeExecutorContract(
  language: CodeLanguage,
  factory: (() => Promise<CodeExecutor>) | ExecutorFactory,
  options: CodeExecutorContractOptions = {},
): Contract<CodeExecutor> {
  const declared = typeof factory === "function" ? undefined : factory;
  const make = typeof factory === "function" ? factory : () => factory.create();
  const builtIn = CODE_SNIPPETS[language];
  if (!builtIn && !options.snippets) {
    throw new Error(`codeExecutorContract: no snippets for ${language}; pass options.snippets`);
  }
  const code = { ...builtIn, ...options.snippets } as CodeSnippets;
  const timeoutMs = options.timeoutMs ?? 300;
  const interruptWithinMs = options.interruptWithinMs ?? 5_000;

  const withExecutor =
    (body: (executor: CodeExecutor, calls: Record<string, number>) => Promise<void>) =>
    (make: () => Promise<CodeExecutor>) => {
      const calls: Record<string, number> = {};
      return withSubject(
        async () => {
          const executor = await make();
          await executor.setTools(contractTools(calls));
          return executor;
        },
        (executor) => executor.close(),
        (executor) => body(executor, calls),
      );
    };

  const run = (executor: CodeExecutor, snippet: string, ms = interruptWithinMs) =>
    within(ms, "run()", executor.run(snippet));

  const expectOk = (result: ExecutionResult, what: string) =>
    assert.equal(result.error, undefined, `${what} failed: ${JSON.stringify(result.error)}`);

  const cases: ContractCase<CodeExecutor>[] = [
    {
      name: "declares its language",
      run: withExecutor(async (executor) => assert.equal(executor.language, language)),
    },
    {
      name: "declares valid capabilities for its language",
      run: withExecutor(async (executor) => {
        const capabilities = executor.capabilities;
        assert.ok(capabilities && typeof capabilities === "object", "capabilities is an object");
        assert.ok(
          capabilities.language === language,
          `capabilities.language is ${language}, got ${String(capabilities.language)}`,
        );
        // The cases below hold every executor to notebook state and callable tools.
        assert.ok(capabilities.persistentState === true, "capabilities.persistentState is true");
        assert.ok(capabilities.tools === true, "capabilities.tools is true");
        assert.ok(
          EXECUTOR_ISOLATIONS.includes(capabilities.isolation),
          `capabilities.isolation is one of ${EXECUTOR_ISOLATIONS.join(", ")}, got ${String(capabilities.isolation)}`,
        );
        assert.ok(
          EXECUTOR_NETWORKS.includes(capabilities.network),
          `capabilities.network is one of ${EXECUTOR_NETWORKS.join(", ")}, got ${String(capabilities.network)}`,
        );
        if (declared) {
          const mine = JSON.stringify(capabilities);
          const promised = JSON.stringify(declared.capabilities);
          assert.ok(mine === promised, `the factory declares ${promised}, its executor ${mine}`);
        }
      }),
    },
    {
      name: "returns the last expression's value",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.lastValue);
        expectOk(result, "lastValue");
        assert.equal(result.output, 42);
        assert.equal(result.isFinalAnswer, false);
        assert.ok(typeof result.durationMs === "number" && result.durationMs >= 0, "durationMs is a number");
      }),
    },
    {
      name: "returns JSON-compatible objects intact",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.jsonValue);
        expectOk(result, "jsonValue");
        assert.deepEqual(result.output, { a: [1, "two", null] });
      }),
    },
    {
      name: "keeps variables across runs",
      run: withExecutor(async (executor) => {
        expectOk(await run(executor, code.defineX), "defineX");
        const result = await run(executor, code.readX);
        expectOk(result, "readX");
        assert.equal(result.output, 42);
      }),
    },
    {
      name: "keeps functions across runs",
      run: withExecutor(async (executor) => {
        expectOk(await run(executor, code.defineX), "defineX");
        expectOk(await run(executor, code.defineBump), "defineBump");
        expectOk(await run(executor, code.lastValue), "an unrelated step in between");
        const result = await run(executor, code.callBump);
        expectOk(result, "callBump");
        assert.equal(result.output, 42);
      }),
    },
    {
      name: "captures printed output",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.printHello);
        expectOk(result, "printHello");
        assert.equal(result.logs, "hello 1\n");
      }),
    },
    {
      name: "final_answer ends the run with its value",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.finalAnswer);
        expectOk(result, "finalAnswer");
        assert.equal(result.isFinalAnswer, true);
        assert.equal(result.output, "done");
        assert.ok(!result.logs.includes("after"), "code after final_answer must not run");
      }),
    },
    {
      name: "returns runtime errors as values with the failing line",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.throwOnLine2);
        assert.ok(result.error, "expected an error");
        assert.equal(result.error.kind, "runtime");
        assert.match(result.error.message, /boom/);
        assert.equal(result.error.line, 2);
        assert.equal(result.isFinalAnswer, false);
      }),
    },
    {
      name: "returns syntax errors as values",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.syntaxError);
        assert.ok(result.error, "expected an error");
        assert.equal(result.error.kind, "syntax");
      }),
    },
    {
      name: "keeps logs printed before an error",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.printThenThrow);
        assert.ok(result.error, "expected an error");
        assert.equal(result.logs, "before\n");
      }),
    },
    {
      name: "calls host tools",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.callAdd);
        expectOk(result, "callAdd");
        assert.equal(result.output, 5);
      }),
    },
    {
      name: "an uncaught tool error is a 'tool' error naming the message",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.callFail);
        assert.ok(result.error, "expected an error");
        assert.equal(result.error.kind, "tool");
        assert.match(result.error.message, /nope/);
      }),
    },
    {
      name: "tool errors can be caught by the code",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.catchFail);
        expectOk(result, "catchFail");
        assert.equal(typeof result.output, "string");
        assert.match(result.output as string, /^caught: .*nope/);
      }),
    },
    {
      name: "images returned by tools come back with the result",
      run: withExecutor(async (executor) => {
        const result = await run(executor, code.callSnapshot);
        expectOk(result, "callSnapshot");
        assert.equal(result.output, "pixel");
        assert.deepEqual(result.images, [PIXEL_PNG]);
      }),
    },
    {
      name: "variables set by the host are visible",
      run: withExecutor(async (executor) => {
        await executor.setVariables({ greeting: "hi", data: { n: 2 } });
        const result = await run(executor, code.readVariables);
        expectOk(result, "readVariables");
        assert.equal(result.output, "hi2");
      }),
    },
    {
      name: "reset drops state but keeps tools",
      run: withExecutor(async (executor) => {
        expectOk(await run(executor, code.defineX), "defineX");
        await executor.reset();
        const after = await run(executor, code.readX);
        assert.ok(after.error, "x must be gone after reset");
        const tool = await run(executor, code.callAdd);
        expectOk(tool, "callAdd after reset");
        assert.equal(tool.output, 5);
      }),
    },
    {
      name: "a time limit stops an infinite loop and the executor stays usable",
      run: withExecutor(async (executor) => {
        const started = Date.now();
        const result = await within(
          interruptWithinMs,
          "a timed-out run",
          executor.run(code.infiniteLoop, { timeoutMs }),
        );
        assert.ok(result.error, "expected a timeout error");
        assert.equal(result.error.kind, "timeout");
        assert.ok(Date.now() - started >= timeoutMs * 0.9, "stopped before its time budget");
        const next = await run(executor, code.lastValue);
        expectOk(next, "a run after the timeout");
        assert.equal(next.output, 42);
      }),
    },
    {
      name: "aborting rejects with an AbortError and the executor stays usable",
      run: withExecutor(async (executor) => {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const outcome = await within(
          interruptWithinMs,
          "an aborted run",
          executor.run(code.infiniteLoop, { signal: controller.signal }).then(
            () => undefined,
            (error: unknown) => error,
          ),
        );
        assert.ok(outcome instanceof AtriumError, `expected an AtriumError, got ${String(outcome)}`);
        assert.equal(outcome.code, "ABORTED");
        const next = await run(executor, code.lastValue);
        expectOk(next, "a run after the abort");
        assert.equal(next.output, 42);
      }),
    },
    {
      name: "a second run while one runs is refused with ExecutorBusyError, and the first goes on",
      run: withExecutor(async (executor) => {
        // The first run awaits a tool, so it is still going when the second call arrives.
        const first = executor.run(code.callAdd);
        const refused = await within(
          interruptWithinMs,
          "a run during a run",
          executor.run(code.lastValue).then(
            () => undefined,
            (error: unknown) => error,
          ),
        );
        assert.ok(
          refused instanceof ExecutorBusyError,
          `expected an ExecutorBusyError, got ${refused === undefined ? "a result (the run was queued or overlapped)" : String(refused)}`,
        );
        assert.equal(refused.code, "CONFIG");
        assert.equal(refused.isFatal, true);
        const result = await within(interruptWithinMs, "the first run", first);
        expectOk(result, "the first run");
        assert.equal(result.output, 5);
        const next = await run(executor, code.lastValue);
        expectOk(next, "a run after the refused one");
        assert.equal(next.output, 42);
      }),
    },
    ...approvalCases(code, { timeoutMs, interruptWithinMs, withExecutor, expectOk }),
    {
      name: "replay: a recorded step's tool calls answer its replay, and another call is refused",
      run: async (make) => {
        const record: StepJournal = { toolCalls: [] };
        await withExecutor(async (executor, calls) => {
          if (!executor.capabilities.replay) return;
          const result = await within(
            interruptWithinMs,
            "a recorded run",
            executor.run(code.callAdd, { journal: { record } }),
          );
          expectOk(result, "callAdd recorded");
          assert.equal(result.output, 5);
          assert.equal(calls.add, 1);
          assert.deepEqual(
            record.toolCalls.map(({ name, input, outcome }) => ({ name, input, outcome })),
            [{ name: "add", input: '{"a":2,"b":3}', outcome: { ok: true, json: "5" } }],
          );
          assert.ok(typeof record.toolCalls[0]?.id === "string", "a recorded call keeps its id");
        })(make);
        if (record.toolCalls.length === 0) return;
        await withExecutor(async (executor, calls) => {
          const replayed = await within(
            interruptWithinMs,
            "a replayed run",
            executor.run(code.callAdd, { journal: { replay: record } }),
          );
          expectOk(replayed, "callAdd replayed");
          assert.equal(replayed.output, 5);
          assert.equal(calls.add, undefined, "a replayed call must not run the tool");
          const other: StepJournal = {
            toolCalls: [{ name: "add", input: '{"a":2,"b":4}', outcome: { ok: true, json: "6" } }],
          };
          const refused = await within(
            interruptWithinMs,
            "a replay that diverges",
            executor.run(code.callAdd, { journal: { replay: other } }).then(
              () => undefined,
              (error: unknown) => error,
            ),
          );
          assert.ok(
            refused instanceof ReplayMismatchError,
            `expected a ReplayMismatchError, got ${String(refused)}`,
          );
          assert.equal(
            refused.message,
            'the replay made another call than the record: call 1 was add({"a":2,"b":4}), now add({"a":2,"b":3}); the sandbox\'s state cannot be rebuilt from this record',
          );
          assert.equal(calls.add, undefined);
        })(make);
      },
    },
    {
      name: "close is idempotent and later runs reject with CLOSED",
      run: async (make) => {
        const executor = await make();
        await executor.close();
        await executor.close();
        await assert.rejects(executor.run(code.lastValue), (error: unknown) => {
          assert.ok(error instanceof AtriumError, "expected an AtriumError");
          assert.equal(error.code, "CLOSED");
          return true;
        });
      },
    },
  ];
  return { name: `CodeExecutor contract (${language})`, factory: make, cases };
}

interface ApprovalCaseKit {
  timeoutMs: number;
  interruptWithinMs: number;
  withExecutor: (
    body: (executor: CodeExecutor, calls: Record<string, number>) => Promise<void>,
  ) => (make: () => Promise<CodeExecutor>) => Promise<void>;
  expectOk: (result: ExecutionResult, what: string) => void;
}

const DENIED = 'Tool "guarded" was not approved: not today';

/** A handler that never answers, and what it was asked with. */
function silentHandler() {
  const seen: { request: ApprovalRequest; signal: AbortSignal }[] = [];
  const handler: ApprovalHandler = (request, signal) => {
    seen.push({ request, signal });
    return new Promise<never>(() => {});
  };
  return { seen, handler };
}

/**
 * Approvals of tool calls made by the code (`Tool.needsApproval`, `ExecutorRunOptions.onApproval`):
 * the call waits and then runs, a denial is a catchable tool error and the tool never runs, a
 * call with no one to ask is refused, the wait does not count against the time limit and has a
 * limit of its own, an abort ends the wait, and (where the language calls tools concurrently)
 * the other calls go on while one waits.
 */
function approvalCases(code: CodeSnippets, kit: ApprovalCaseKit): ContractCase<CodeExecutor>[] {
  const { timeoutMs, interruptWithinMs, withExecutor, expectOk } = kit;
  const deny: ApprovalHandler = () => ({ approved: false, reason: "not today" });
  const cases: ContractCase<CodeExecutor>[] = [
    {
      name: "approvals: a call that needs approval waits for it, then runs",
      run: withExecutor(async (executor, calls) => {
        const requests: ApprovalRequest[] = [];
        const result = await within(
          interruptWithinMs,
          "an approved run",
          executor.run(code.callGuarded, {
            onApproval: (request) => {
              requests.push(request);
              assert.equal(calls.guarded, undefined, "the tool ran before its approval");
              return { approved: true };
            },
          }),
        );
        expectOk(result, "callGuarded");
        assert.equal(result.output, "ran 7");
        assert.equal(calls.guarded, 1);
        assert.equal(requests.length, 1);
        assert.equal(requests[0]?.toolName, "guarded");
        assert.deepEqual(requests[0]?.input, { n: 7 });
        assert.ok(typeof requests[0]?.toolCallId === "string" && requests[0].toolCallId.length > 0);
      }),
    },
    {
      name: "approvals: a denied call is a 'tool' error with the reason, and the tool never runs",
      run: withExecutor(async (executor, calls) => {
        const result = await within(
          interruptWithinMs,
          "a denied run",
          executor.run(code.callGuarded, { onApproval: deny }),
        );
        assert.ok(result.error, "expected an error");
        assert.equal(result.error.kind, "tool");
        assert.ok(result.error.message.includes(DENIED), `got: ${result.error.message}`);
        assert.equal(calls.guarded, undefined);
      }),
    },
    {
      name: "approvals: the code can catch a denial",
      run: withExecutor(async (executor, calls) => {
        const result = await within(
          interruptWithinMs,
          "a caught denial",
          executor.run(code.catchGuarded, { onApproval: deny }),
        );
        expectOk(result, "catchGuarded");
        assert.equal(result.output, `caught: ${DENIED}`);
        assert.equal(calls.guarded, undefined);
      }),
    },
    {
      name: "approvals: with no one to ask, a call that needs approval is refused",
      run: withExecutor(async (executor, calls) => {
        const result = await within(interruptWithinMs, "an unasked run", executor.run(code.catchGuarded));
        expectOk(result, "catchGuarded");
        assert.equal(
          result.output,
          'caught: Tool "guarded" was not approved: it needs approval and no one was asked (give the run an onApproval handler, or run the CLI with --approve)',
        );
        assert.equal(calls.guarded, undefined);
      }),
    },
    {
      name: "approvals: waiting for an answer does not count against the time limit",
      run: withExecutor(async (executor) => {
        const wait = timeoutMs * 3;
        const started = Date.now();
        const result = await within(
          interruptWithinMs + wait,
          "a run that waits for an approval",
          executor.run(code.callGuarded, {
            timeoutMs,
            onApproval: () => new Promise((resolve) => setTimeout(() => resolve({ approved: true }), wait)),
          }),
        );
        expectOk(result, "callGuarded after a long wait");
        assert.equal(result.output, "ran 7");
        assert.ok(Date.now() - started >= wait, "the run returned before its approval came");
      }),
    },
    {
      name: "approvals: a wait past approvalTimeoutMs is refused and the request withdrawn",
      run: withExecutor(async (executor, calls) => {
        const { seen, handler } = silentHandler();
        const result = await within(
          interruptWithinMs,
          "a run whose approval never comes",
          executor.run(code.catchGuarded, { onApproval: handler, approvalTimeoutMs: 200 }),
        );
        expectOk(result, "catchGuarded");
        assert.equal(
          result.output,
          'caught: Tool "guarded" was not approved: no answer came within 200 ms (approvalTimeoutMs)',
        );
        assert.equal(seen.length, 1);
        assert.equal(seen[0]?.signal.aborted, true, "the handler's signal must abort");
        assert.equal(calls.guarded, undefined);
      }),
    },
    {
      name: "approvals: aborting while a call waits rejects with ABORTED, withdraws it, and the executor stays usable",
      run: withExecutor(async (executor, calls) => {
        const { seen, handler } = silentHandler();
        const controller = new AbortController();
        const outcome = await within(
          interruptWithinMs,
          "a run aborted while it waits",
          executor
            .run(code.callGuarded, {
              signal: controller.signal,
              onApproval: (request, signal) => {
                setTimeout(() => controller.abort(), 20);
                return handler(request, signal);
              },
            })
            .then(
              () => undefined,
              (error: unknown) => error,
            ),
        );
        assert.ok(outcome instanceof AtriumError, `expected an AtriumError, got ${String(outcome)}`);
        assert.equal(outcome.code, "ABORTED");
        assert.equal(seen[0]?.signal.aborted, true, "the handler's signal must abort");
        assert.equal(calls.guarded, undefined);
        const next = await within(interruptWithinMs, "run()", executor.run(code.lastValue));
        expectOk(next, "a run after the abort");
        assert.equal(next.output, 42);
      }),
    },
  ];
  const parallel = code.parallelGuarded;
  if (parallel) {
    cases.push({
      name: "approvals: while one call waits for its approval, the others run",
      run: withExecutor(async (executor, calls) => {
        let addRanFirst = false;
        const result = await within(
          interruptWithinMs,
          "parallel calls with one waiting",
          executor.run(parallel, {
            onApproval: async () => {
              // Approve only once `add` has run: it must not wait for this answer.
              for (let i = 0; i < 200 && calls.add !== 1; i++) await new Promise((r) => setTimeout(r, 10));
              addRanFirst = calls.add === 1;
              return { approved: true };
            },
          }),
        );
        expectOk(result, "parallelGuarded");
        assert.deepEqual(result.output, ["ran 7", 5]);
        assert.equal(addRanFirst, true, "add waited for guarded's approval");
      }),
    });
  }
  return cases;
}
