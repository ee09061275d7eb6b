import { codeExecutorContract, describeContract } from "@atrium/spec/testing";
import { afterAll, describe } from "vitest";
import { sharedMachineExecutorFactory } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

// One booted machine for the whole file (a boot costs seconds under TCG): the shared-machine
// factory gives each case a fresh interpreter in it, and its close ends only that interpreter.
const factory = sharedMachineExecutorFactory();
afterAll(() => factory.close());

describe.skipIf(SKIP_VM_SUITES)("micro-VM executor", () => {
  describeContract(codeExecutorContract("python", factory), 240_000);
});
