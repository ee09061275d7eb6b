export { SandboxExitError, SandboxProtocolError } from "./errors.js";
export { EXECUTOR_LIMIT_KINDS, type ExecutorLimits, limitOptions } from "./executor/executor-limits.js";
export { type ExecutorRun, type HostStop, newExecutorRun } from "./executor/executor-run.js";
export {
  boundOutput,
  DEFAULT_MAX_OUTPUT_CHARS,
  OutputBuffer,
  outputCutNote,
} from "./executor/output-limit.js";
export type { RequestOf, SandboxHost, ToolCallOf } from "./executor/sandbox-host.js";
export { SandboxedExecutor, type VariableEntry } from "./executor/sandboxed-executor.js";
export { type LimitKind, type LimitKinds, resolveLimitValues } from "./limits/resolve-limit-values.js";
export {
  launchOsSandbox,
  OS_SANDBOX_INSTALL_HINT,
  type OsSandboxProcess,
  OsSandboxUnavailableError,
  osSandboxHost,
} from "./os-sandbox/launch-os-sandbox.js";
export {
  type OsSandboxHost,
  type OsSandboxProgram,
  osSandboxCommand,
  type ReadOnlyMount,
  SANDBOX_APP,
  SANDBOX_ROOT,
} from "./os-sandbox/os-sandbox-command.js";
export {
  DEFAULT_OS_SANDBOX_LIMITS,
  type OsSandboxLimits,
  resolveOsSandboxLimits,
} from "./os-sandbox/os-sandbox-limits.js";
export { type OsSandboxReport, probeOsSandbox } from "./os-sandbox/probe-os-sandbox.js";
export { type SandboxCallOptions, SandboxConnection } from "./os-sandbox/sandbox-connection.js";
export { type SandboxProgramFiles, sandboxProgramDir } from "./os-sandbox/sandbox-program-dir.js";
export { DENIED_SYSCALLS, seccompProgram } from "./os-sandbox/seccomp-program.js";
export {
  type PackageFileOptions,
  packageFile,
  packageText,
  runsFromSource,
} from "./package-files/package-file.js";
export {
  startWorkerThread,
  type WorkerEntry,
  workerEntry,
} from "./package-files/start-worker-thread.js";
export {
  OPENAI_COMPATIBLE_PROVIDER,
  type ProviderSpec,
  type ProviderSpecSyntax,
  parseProviderSpec,
  providerApiKey,
  providerBaseUrl,
} from "./provider/provider-spec.js";
export * from "./ranking/index.js";
export {
  encodeBytesFrame,
  encodeJsonFrame,
  type Frame,
  FrameError,
  FrameReader,
} from "./remote/frame-codec.js";
export {
  type CallOptions,
  RemoteCallError,
  RemoteClosedError,
  RemoteEndpoint,
  type RemoteEndpointOptions,
} from "./remote/remote-endpoint.js";
export {
  asHostToRemote,
  asRemoteToHost,
  DEFAULT_MAX_JSON_FRAME_BYTES,
  type HostToRemote,
  type RemoteErrorValue,
  type RemoteToHost,
} from "./remote/remote-protocol.js";
export {
  type RemoteHandler,
  type RemoteServer,
  type ServeRemoteOptions,
  serveRemote,
} from "./remote/serve-remote.js";
export {
  type AskApprovalOptions,
  askApproval,
  NO_APPROVER_REASON,
  notApprovedMessage,
  toolNeedsApproval,
} from "./tool-call/ask-approval.js";
export {
  DEFAULT_SANDBOX_ERROR_CHARS,
  runSandboxToolCall,
  type SandboxToolCall,
  type SandboxToolOutcome,
  type ToolCallEvent,
} from "./tool-call/sandbox-tool-call.js";
export {
  type SchemaToolDefinition,
  schemaTool,
  schemaToolInput,
  validateWithSchema,
} from "./tool-call/schema-tool.js";
export { capText } from "./values/cap-text.js";
export { describeThrown } from "./values/describe-thrown.js";
export { toJsonText } from "./values/sandbox-json.js";
