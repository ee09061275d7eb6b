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
