import type { RequestOf, SandboxHost, ToolCallOf } from "@atrium/kit";
import type { HarnessRunResult, HostToWorker, ToolOutcome, WorkerToHost } from "./worker-protocol.js";

export type ToolCallMessage = ToolCallOf<WorkerToHost>;
export type SandboxRequest = RequestOf<HostToWorker>;

/**
 * The executor's handle on one Python interpreter (its kit `SandboxHost`), wherever it runs: a worker thread of this
 * process (`PythonWorkerClient`, isolation "wasm") or a worker thread inside an OS-sandboxed
 * process (`PythonProcessClient`, isolation "process"). Requests are answered in order; a tool
 * call arrives while a run is waiting and is answered with `answerTool`.
 */
export interface PythonSandboxClient extends SandboxHost<ToolCallMessage> {
  request(message: Extract<SandboxRequest, { type: "run" }>): Promise<HarnessRunResult>;
  request(message: SandboxRequest): Promise<void>;
  answerTool(callId: number, outcome: ToolOutcome): void;
  /** Asks the running step to stop: CPython raises KeyboardInterrupt at its next check. */
  interrupt(): void;
  clearInterrupt(): void;
}
