import { codeExecutorContract, describeContract } from "@atrium/spec/testing";
import { afterAll } from "vitest";
import { pythonExecutorFactory } from "./python-executor-factory.js";
import { drainPythonWorkers } from "./worker-pool.js";

afterAll(() => drainPythonWorkers());

// Through the factory, so the suite also checks that it declares what its executors do.
describeContract(codeExecutorContract("python", pythonExecutorFactory()), 60_000);
