import { describe, it } from "vitest";
import type { Contract } from "./contract.js";

/** Registers a contract's cases as vitest tests, one `it` per case. */
export function describeContract<Subject>(contract: Contract<Subject>, timeoutMs = 30_000): void {
  describe(contract.name, () => {
    for (const testCase of contract.cases) {
      it(testCase.name, () => testCase.run(contract.factory), timeoutMs);
    }
  });
}
