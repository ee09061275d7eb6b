import { describe, expect, it } from "vitest";
import type {
  CodeExecutor,
  ExecutionResult,
  ExecutorCapabilities,
  MemoryItem,
  RecallOptions,
  RunOptions,
} from "../src/index.js";
import {
  type Contract,
  codeExecutorContract,
  describeContract,
  memoryStoreContract,
  runContract,
} from "../src/testing/index.js";
import { ReferenceExecutor, referenceExecutorFactory } from "./reference-executor.js";
import { ReferenceMemoryStore } from "./reference-memory-store.js";

// The suites pass on correct implementations...
describeContract(codeExecutorContract("javascript", async () => new ReferenceExecutor()));
describeContract(codeExecutorContract("javascript", referenceExecutorFactory));
describeContract(memoryStoreContract(async () => new ReferenceMemoryStore()));

// ...and each deliberately broken implementation fails exactly the cases that check what it broke.
async function failingCases<S>(contract: Contract<S>): Promise<string[]> {
  const outcomes = await runContract(contract);
  return outcomes.filter((outcome) => !outcome.passed).map((outcome) => outcome.name);
}

/** The failing cases with their messages, for checks that must fail for one precise reason. */
async function failureMessages<S>(contract: Contract<S>): Promise<{ name: string; message: string }[]> {
  const outcomes = await runContract(contract);
  return outcomes
    .filter((outcome) => !outcome.passed)
    .map((outcome) => ({ name: outcome.name, message: (outcome.error as Error).message }));
}

/** Forgets everything between runs. */
class AmnesiacExecutor extends ReferenceExecutor {
  override async run(code: string, options?: RunOptions): Promise<ExecutionResult> {
    await this.reset();
    return super.run(code, options);
  }
}

/** Throws errors at the host instead of returning them as values. */
class ThrowingExecutor extends ReferenceExecutor {
  override async run(code: string, options?: RunOptions): Promise<ExecutionResult> {
    const result = await super.run(code, options);
    if (result.error) throw new Error(result.error.message);
    return result;
  }
}

/** Loses logs and line numbers. */
class ForgetfulLogsExecutor extends ReferenceExecutor {
  override async run(code: string, options?: RunOptions): Promise<ExecutionResult> {
    const result = await super.run(code, options);
    const { line: _line, ...error } = result.error ?? {};
    return { ...result, logs: "", ...(result.error ? { error: error as ExecutionResult["error"] } : {}) };
  }
}

/** Queues a second run behind the first instead of refusing it. */
class QueueingExecutor extends ReferenceExecutor {
  private queue: Promise<unknown> = Promise.resolve();
  override run(code: string, options?: RunOptions): Promise<ExecutionResult> {
    const next = this.queue.then(() => super.run(code, options));
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/** Never closes. */
class UnclosableExecutor extends ReferenceExecutor {
  override async close(): Promise<void> {}
}

/** Ignores the variables the host sets. */
class DeafExecutor extends ReferenceExecutor {
  override setVariables(): void {}
}

/** Runs JavaScript but claims Python, so an agent would prompt its model in the wrong language. */
class MislabelledExecutor extends ReferenceExecutor {
  override readonly capabilities: ExecutorCapabilities = {
    ...new ReferenceExecutor().capabilities,
    language: "python",
  };
}

/** Declares an isolation kind that does not exist. */
class VagueIsolationExecutor extends ReferenceExecutor {
  override readonly capabilities = {
    ...new ReferenceExecutor().capabilities,
    isolation: "sandboxed",
  } as unknown as ExecutorCapabilities;
}

describe("the CodeExecutor contract fails broken executors", () => {
  const broken = (make: () => CodeExecutor) => codeExecutorContract("javascript", async () => make());

  it("an executor without state between runs", async () => {
    expect(await failingCases(broken(() => new AmnesiacExecutor()))).toEqual([
      "keeps variables across runs",
      "keeps functions across runs",
      "variables set by the host are visible",
    ]);
  }, 30_000);

  it("an executor that throws errors instead of returning them", async () => {
    expect(await failingCases(broken(() => new ThrowingExecutor()))).toEqual([
      "returns runtime errors as values with the failing line",
      "returns syntax errors as values",
      "keeps logs printed before an error",
      "an uncaught tool error is a 'tool' error naming the message",
      "reset drops state but keeps tools",
      "a time limit stops an infinite loop and the executor stays usable",
      "approvals: a denied call is a 'tool' error with the reason, and the tool never runs",
    ]);
  }, 30_000);

  it("an executor that drops logs and failing lines", async () => {
    expect(await failingCases(broken(() => new ForgetfulLogsExecutor()))).toEqual([
      "captures printed output",
      "returns runtime errors as values with the failing line",
      "keeps logs printed before an error",
    ]);
  }, 30_000);

  it("an executor that queues a run behind another instead of refusing it", async () => {
    expect(await failureMessages(broken(() => new QueueingExecutor()))).toEqual([
      {
        name: "a second run while one runs is refused with ExecutorBusyError, and the first goes on",
        message: "expected an ExecutorBusyError, got a result (the run was queued or overlapped)",
      },
    ]);
  }, 30_000);

  it("an executor that cannot be closed", async () => {
    expect(await failingCases(broken(() => new UnclosableExecutor()))).toEqual([
      "close is idempotent and later runs reject with CLOSED",
    ]);
  }, 30_000);

  it("an executor that ignores host variables", async () => {
    expect(await failingCases(broken(() => new DeafExecutor()))).toEqual([
      "variables set by the host are visible",
    ]);
  }, 30_000);

  it("an executor whose capabilities claim another language", async () => {
    expect(await failureMessages(broken(() => new MislabelledExecutor()))).toEqual([
      {
        name: "declares valid capabilities for its language",
        message: "capabilities.language is javascript, got python",
      },
    ]);
  }, 30_000);

  it("an executor whose isolation kind is not one the contract knows", async () => {
    expect(await failureMessages(broken(() => new VagueIsolationExecutor()))).toEqual([
      {
        name: "declares valid capabilities for its language",
        message: "capabilities.isolation is one of in-process, worker, process, wasm, vm, got sandboxed",
      },
    ]);
  }, 30_000);

  it("a factory that declares other capabilities than its executors have", async () => {
    const factory = {
      capabilities: { ...referenceExecutorFactory.capabilities, network: "none" as const },
      create: async () => new ReferenceExecutor(),
    };
    expect(await failureMessages(codeExecutorContract("javascript", factory))).toEqual([
      {
        name: "declares valid capabilities for its language",
        message:
          'the factory declares {"language":"javascript","persistentState":true,"tools":true,"isolation":"in-process","network":"none"}, its executor {"language":"javascript","persistentState":true,"tools":true,"isolation":"in-process","network":"full"}',
      },
    ]);
  }, 30_000);
});

/** Ignores scopes when recalling. */
class ScopelessStore extends ReferenceMemoryStore {
  override recall(query: string, { scope: _ignored, ...options }: RecallOptions = {}) {
    return super.recall(query, options);
  }
}

/** Stores a tidied-up copy instead of the verbatim text, with a fresh id each time. */
class ParaphrasingStore extends ReferenceMemoryStore {
  private n = 0;
  override async remember(item: MemoryItem) {
    if (!item.content.trim()) return super.remember(item);
    const result = await super.remember({
      ...item,
      content: `${item.content.trim().toLowerCase()} #${this.n++}`,
    });
    return result;
  }
}

/** Returns everything it has on wake-up, whatever the budget. */
class GreedyWakeUpStore extends ReferenceMemoryStore {
  override async wakeUp(): Promise<string> {
    this.checkOpen();
    return [...this.items.values()].map(({ item }) => item.content).join("\n");
  }
}

/** Says it forgot, but keeps the memory. */
class HoardingStore extends ReferenceMemoryStore {
  override async forget(id: string): Promise<boolean> {
    this.checkOpen();
    return this.items.has(id);
  }
}

/** Ignores time ranges, malformed ones included. */
class TimelessStore extends ReferenceMemoryStore {
  override recall(query: string, { timeRange: _ignored, ...options }: RecallOptions = {}) {
    return super.recall(query, options);
  }
}

/** Keeps answering after close. */
class UnclosableStore extends ReferenceMemoryStore {
  override async close(): Promise<void> {}
}

describe("the MemoryStore contract fails broken stores", () => {
  it("a store that ignores scopes", async () => {
    expect(await failingCases(memoryStoreContract(async () => new ScopelessStore()))).toEqual([
      "a wing scope never returns memories from another wing",
      "a room scope narrows to that room",
    ]);
  });

  it("a store that paraphrases and duplicates", async () => {
    expect(await failingCases(memoryStoreContract(async () => new ParaphrasingStore()))).toEqual([
      "remembering the same content twice returns the same id and does not duplicate",
      "recall returns the most relevant memory first, verbatim",
      "a room scope narrows to that room",
      "unicode content comes back byte for byte",
      "forget removes a memory and says whether it was there",
      "recall hits carry the memory's timestamp",
      "a time range keeps only memories inside it, both bounds inclusive",
    ]);
  });

  it("a store whose wake-up ignores the budget", async () => {
    expect(await failingCases(memoryStoreContract(async () => new GreedyWakeUpStore()))).toEqual([
      "wake-up fits its token budget and is not empty once memories exist",
    ]);
  });

  it("a store that does not forget", async () => {
    expect(await failingCases(memoryStoreContract(async () => new HoardingStore()))).toEqual([
      "forget removes a memory and says whether it was there",
    ]);
  });

  it("a store that ignores time ranges", async () => {
    expect(await failingCases(memoryStoreContract(async () => new TimelessStore()))).toEqual([
      "a time range keeps only memories inside it, both bounds inclusive",
      "a malformed or inverted time range is rejected with a VALIDATION error",
    ]);
  });

  it("a store that cannot be closed", async () => {
    expect(await failingCases(memoryStoreContract(async () => new UnclosableStore()))).toEqual([
      "close is idempotent and later calls reject with CLOSED",
    ]);
  });
});
