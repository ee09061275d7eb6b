import { codeExecutorContract, describeContract } from "@atrium/spec/testing";
import { QuickJsExecutor } from "./quickjs-executor.js";

describeContract(codeExecutorContract("javascript", () => QuickJsExecutor.create()));
