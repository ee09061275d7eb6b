import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node";

/** One test's outcome, as `.ci/run-tests.mjs` reads it. */
export interface TestOutcome {
  /** "<file> > <suite> > <test>", stable across runs: what `.ci/allowed-skips.txt` lists. */
  id: string;
  state: "passed" | "failed" | "skipped" | "pending";
  /** Skipped because a `beforeAll`/`beforeEach` of an enclosing suite or file failed: a failure. */
  setupFailed: boolean;
  /** The reason given to `ctx.skip(note)`, if any. */
  note?: string;
}

/**
 * Writes every test's outcome to a JSON file. Vitest's own JSON report cannot tell a test that
 * was skipped on purpose from one that never ran because its suite's set-up failed (both are
 * "skipped"); this reporter can, because it sees the suite's errors. A file that failed to load
 * is one failed entry.
 */
export class TestSummaryReporter implements Reporter {
  constructor(private readonly outputFile: string) {}

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const outcomes: TestOutcome[] = [];
    for (const module of testModules) {
      const file = module.relativeModuleId;
      const tests = [...module.children.allTests()];
      if (tests.length === 0 && module.errors().length > 0) {
        outcomes.push({ id: file, state: "failed", setupFailed: true });
      }
      for (const test of tests) outcomes.push(outcomeOf(file, test));
    }
    mkdirSync(dirname(this.outputFile), { recursive: true });
    writeFileSync(this.outputFile, `${JSON.stringify(outcomes, null, 1)}\n`);
  }
}

function outcomeOf(file: string, test: TestCase): TestOutcome {
  const result = test.result();
  const id = `${file} > ${test.fullName}`;
  if (result.state !== "skipped") return { id, state: result.state, setupFailed: false };
  const setupFailed = test.options.mode === "run" && result.note === undefined && hasFailedAncestor(test);
  return { id, state: "skipped", setupFailed, ...(result.note ? { note: result.note } : {}) };
}

function hasFailedAncestor(test: TestCase): boolean {
  let parent: TestSuite | TestModule = test.parent;
  for (;;) {
    if (parent.errors().length > 0) return true;
    if (parent.type === "module") return false;
    parent = parent.parent;
  }
}
