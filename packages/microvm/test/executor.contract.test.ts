import type { ExecutorFactory } from "@atrium/spec";
import { codeExecutorContract, describeContract } from "@atrium/spec/testing";
import { afterAll, describe } from "vitest";
import { bootPythonMachine, type Machine, MicroVmExecutor, microVmCapabilities } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

// One booted machine for the whole file (a boot costs seconds under TCG); each case gets a fresh
// interpreter in it, and its close ends only that interpreter.
let machine: Promise<Machine> | undefined;
const sharedMachine = () => {
  machine ??= bootPythonMachine();
  return machine;
};
afterAll(async () => {
  await (await machine)?.stop();
});

const factory: ExecutorFactory = {
  capabilities: microVmCapabilities(),
  create: async () => MicroVmExecutor.create({ machine: await sharedMachine() }),
};

describe.skipIf(SKIP_VM_SUITES)("micro-VM executor", () => {
  describeContract(codeExecutorContract("python", factory), 240_000);
});
