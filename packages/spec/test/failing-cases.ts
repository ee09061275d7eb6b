import { type Contract, runContract } from "../src/testing/index.js";

/** The names of the cases a subject fails, in suite order: what a broken implementation must show. */
export async function failingCases<S>(contract: Contract<S>): Promise<string[]> {
  const outcomes = await runContract(contract);
  return outcomes.filter((outcome) => !outcome.passed).map((outcome) => outcome.name);
}
