import { codeExecutorContract, describeContract } from "@atrium/spec/testing";
import { quickJsExecutorFactory } from "./quickjs-executor-factory.js";

// Through the factory, so the suite also checks that it declares what its executors do.
describeContract(codeExecutorContract("javascript", quickJsExecutorFactory()));
