import { codeExecutorContract, describeContract } from "@atrium/spec/testing";
import { afterAll, describe } from "vitest";
import { pythonExecutorFactory } from "./python-executor-factory.js";
import { drainPythonWorkers } from "./worker-pool.js";

afterAll(() => drainPythonWorkers());

// Through the factory, so the suite also checks that it declares what its executors do: once
// for the default (the interpreter in an OS-sandboxed process), once for the in-thread mode.
describe('isolation "process"', () => {
  describeContract(codeExecutorContract("python", pythonExecutorFactory()), 60_000);
});
describe('isolation "wasm"', () => {
  describeContract(codeExecutorContract("python", pythonExecutorFactory({ isolation: "wasm" })), 60_000);
});
