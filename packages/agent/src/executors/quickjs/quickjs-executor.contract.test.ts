import { codeExecutorContract, describeContract } from "@atrium/spec/testing";
import { afterAll, describe } from "vitest";
import { quickJsExecutorFactory } from "./quickjs-executor-factory.js";
import { drainSandboxProcesses } from "./sandbox-pools.js";

afterAll(() => drainSandboxProcesses());

// Through the factory, so the suite also checks that it declares what its executors do: once
// in a worker thread (the default), once in an OS-sandboxed process.
describe('isolation "worker"', () => {
  describeContract(codeExecutorContract("javascript", quickJsExecutorFactory()));
});
describe('isolation "process"', () => {
  describeContract(codeExecutorContract("javascript", quickJsExecutorFactory({ isolation: "process" })));
});
