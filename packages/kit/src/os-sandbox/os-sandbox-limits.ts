import { type LimitKinds, resolveLimitValues } from "../limits/resolve-limit-values.js";

/** Resource limits of one OS-sandboxed process, set with `prlimit` before it starts. */
export interface OsSandboxLimits {
  /**
   * Bytes of the process's data segment (RLIMIT_DATA: its heap and every private writable
   * mapping, wasm memory included once it is used). An address-space limit cannot be used:
   * Node reserves gigabytes of address space for each wasm memory up front.
   */
  maxMemoryBytes: number;
  /** CPU seconds over the process's whole life (RLIMIT_CPU); steps have their own time limits. */
  maxCpuSeconds: number;
  /** Processes and threads of the sandbox's own uid (RLIMIT_NPROC), set only when the host is root and hands the sandbox a uid of its own. */
  maxProcesses: number;
  /** Open file descriptors (RLIMIT_NOFILE). */
  maxOpenFiles: number;
}

export const DEFAULT_OS_SANDBOX_LIMITS: Readonly<OsSandboxLimits> = Object.freeze({
  maxMemoryBytes: 2 * 1024 * 1024 * 1024,
  maxCpuSeconds: 3_600,
  maxProcesses: 256,
  maxOpenFiles: 256,
});

const OS_SANDBOX_LIMIT_KINDS: LimitKinds<OsSandboxLimits> = {
  maxMemoryBytes: "count",
  maxCpuSeconds: "count",
  maxProcesses: "count",
  maxOpenFiles: "count",
};

export function resolveOsSandboxLimits(partial: Partial<OsSandboxLimits> = {}): Readonly<OsSandboxLimits> {
  return resolveLimitValues("@atrium/kit", DEFAULT_OS_SANDBOX_LIMITS, OS_SANDBOX_LIMIT_KINDS, partial);
}
