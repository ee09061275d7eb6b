import type { QuickJsLimits } from "../../../limits.js";
import type { QuickJsSandbox, SandboxCallbacks } from "../quickjs-sandbox.js";
import type { SessionRun } from "./session-run.js";

/** The session's line to the host, provided by the worker. */
export interface HostLink {
  /** Asks the host to run a tool; the answer comes back through `deliverToolResult`. */
  requestTool(runId: number, callId: string, name: string, json: string): void;
  /**
   * Blocks until the host sends something (delivering a tool result it brings) or `until`
   * (epoch ms) passes. A stop request also ends the wait, through the stop flag.
   */
  waitForHost(until: number): void;
}

/**
 * What the parts of a `SandboxSession` share: step evaluation, the tool bridge, crash recovery
 * and output accounting are modules of functions over this, so each holds no state of its own
 * and the session (which implements it) is the one owner of the sandbox and the run.
 */
export interface SessionCore {
  /** The QuickJS runtime and context; crash recovery and `reset` replace it. */
  sandbox: QuickJsSandbox;
  readonly limits: QuickJsLimits;
  readonly toolNames: ReadonlySet<string>;
  readonly link: HostLink;
  /** The host's stop flag (see worker-protocol.ts), raised to stop the run under way. */
  readonly stopFlag: Int32Array;
  /** What the sandbox calls back into; a new sandbox gets the same. */
  readonly callbacks: SandboxCallbacks;
  /** The run under way, and its code (failing lines are quoted from it). */
  readonly active: SessionRun | undefined;
  readonly activeCode: string;
  /** Set while the host reads leftovers out of a stopped step: the deadline for that. */
  drainingUntil: number | undefined;
  /** Defines the tools (again) in the current sandbox. */
  installTools(): void;
}
