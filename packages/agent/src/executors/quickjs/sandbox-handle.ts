import type { RequestOf, SandboxHost, ToolCallOf } from "@atrium/kit";
import type {
  HostToWorker,
  RunNotice,
  SandboxMemory,
  SessionRunResult,
  WorkerToHost,
} from "./worker-protocol.js";

export type ToolCallMessage = ToolCallOf<WorkerToHost>;
export type SandboxRequest = RequestOf<HostToWorker>;

/**
 * The executor's handle on one QuickJS sandbox (its kit `SandboxHost`), wherever it runs: a worker thread of this
 * process (`SandboxWorker`, isolation "worker") or a worker thread inside an OS-sandboxed
 * process (`QuickJsProcessClient`, isolation "process"). Replies and tool calls are not
 * trusted either way: the executor checks them (worker-message-checks.ts).
 */
export interface QuickJsSandboxHandle extends SandboxHost<ToolCallMessage> {
  request(message: Extract<SandboxRequest, { type: "run" }>): Promise<SessionRunResult>;
  request(message: Extract<SandboxRequest, { type: "memory" }>): Promise<SandboxMemory>;
  request(message: SandboxRequest): Promise<void>;
  /** A message for the run under way: a tool result, or its clock held or restarted. */
  post(message: RunNotice): void;
  /** Asks the running guest code to stop. */
  stop(): void;
  clearStop(): void;
}
