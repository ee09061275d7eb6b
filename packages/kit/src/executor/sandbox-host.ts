/**
 * What a sandboxed executor holds its sandbox by: a worker thread of this process, a worker
 * thread inside an OS-sandboxed process (over a `SandboxConnection`), or an interpreter in a
 * guest. Each executor adds its own requests; the lifecycle (`SandboxedExecutor`) needs only
 * these. Nothing a host reports is trusted: the executor checks it.
 */
export interface SandboxHost<ToolCall> {
  /** Set by the executor that holds the sandbox: a tool call its guest code made. */
  onToolCall: ((call: ToolCall) => void) | undefined;
  /** False once the sandbox has exited, been terminated or broken. */
  readonly healthy: boolean;
  /** Ends the sandbox; requests still waiting reject with a `SandboxExitError`. Idempotent. */
  terminate(): Promise<void>;
}

/** The tool-call message of a sandbox protocol's guest-to-host messages. */
export type ToolCallOf<GuestMessage> = Extract<GuestMessage, { type: "tool-call" }>;

/**
 * A request as the executor writes it: each host-to-guest message that carries an `id`, without
 * it (the host numbers requests and matches the replies).
 */
export type RequestOf<HostMessage> = HostMessage extends infer Message
  ? Message extends { id: number }
    ? Omit<Message, "id">
    : never
  : never;
