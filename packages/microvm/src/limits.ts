import {
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_SANDBOX_ERROR_CHARS,
  EXECUTOR_LIMIT_KINDS,
  type ExecutorLimits,
  type LimitKinds,
  resolveLimitValues,
} from "@atrium/kit";

/**
 * Every limit of @atrium/microvm in one place. Guest output is untrusted (a command can print
 * forever), so what the host keeps of it is bounded; boots and commands are bounded in time so a
 * wedged guest never hangs the host.
 */
export interface MicrovmLimits {
  /** From QEMU's start to the guest agent's ready frame (TCG on a loaded machine is slow). */
  bootTimeoutMs: number;
  /** Bytes of stdout and of stderr one `exec` result keeps; streamed callbacks see everything. */
  maxExecOutputBytes: number;
  /** How long past its own timeout the host waits for the guest's answer before it gives up on the machine. */
  execGraceMs: number;
  /** Bytes of the guest console kept for error messages. */
  maxConsoleBytes: number;
  /** Largest file `readFile` accepts (the guest agent stops sending there). */
  maxReadFileBytes: number;
  /** How long one `readFile` or `writeFile` may take before the host gives up on it. */
  fileTransferTimeoutMs: number;
  /**
   * Longest line `atrium-vm start` reads on its control socket, and its clients in a reply (a
   * `cp` carries the whole file, base64, in one line: room for a `maxReadFileBytes` file).
   */
  maxControlLineBytes: number;
  /** How long `stop` waits for the guest to power off before it kills QEMU. */
  stopTimeoutMs: number;
  /**
   * How long QEMU may take to write a snapshot's state (the guest is paused meanwhile), or to
   * load one on restore, before the host gives up.
   */
  snapshotTimeoutMs: number;
  /** Clones one `fork` may make (each is a machine of its own: maxRunningMachines still holds). */
  maxForks: number;
  /** How long the KVM probe boot may take before the engine falls back to TCG. */
  kvmProbeTimeoutMs: number;
  /** Free space added to an image's root filesystem on top of its files. */
  rootfsHeadroomBytes: number;
  /** Largest image layer (decompressed) the importer accepts. */
  maxLayerBytes: number;
  /** Largest image (its files) that may boot with its root in guest memory (see MachineOptions.root). */
  maxMemoryRootBytes: number;
  /** Machines (QEMU processes) one host process runs at once; a boot past it is refused. */
  maxRunningMachines: number;
  /**
   * Machines on the whole host: QEMU processes running as QEMU's user (every atrium-vm process
   * on a root host shares it), so separate `atrium-vm run`s cannot pile up without end.
   */
  maxHostMachines: number;
  /** Largest guest memory one machine may have (also never more than the host's own memory). */
  maxMachineMemoryBytes: number;
  /**
   * Bytes a read-write volume may hold. 9p has no quota: the host checks the volume's usage every
   * `volumeCheckIntervalMs` and kills the machine that went past it (see README, "Volumes").
   */
  maxVolumeBytes: number;
  /** How often a running machine's read-write volumes are measured against maxVolumeBytes. */
  volumeCheckIntervalMs: number;
}

export const DEFAULT_MICROVM_LIMITS: Readonly<MicrovmLimits> = Object.freeze({
  bootTimeoutMs: 120_000,
  maxExecOutputBytes: 16 * 1024 * 1024,
  execGraceMs: 30_000,
  maxConsoleBytes: 64 * 1024,
  maxReadFileBytes: 256 * 1024 * 1024,
  fileTransferTimeoutMs: 120_000,
  maxControlLineBytes: 384 * 1024 * 1024,
  stopTimeoutMs: 5_000,
  snapshotTimeoutMs: 120_000,
  maxForks: 8,
  kvmProbeTimeoutMs: 8_000,
  rootfsHeadroomBytes: 256 * 1024 * 1024,
  maxLayerBytes: 4 * 1024 * 1024 * 1024,
  maxMemoryRootBytes: 64 * 1024 * 1024,
  maxRunningMachines: 8,
  maxHostMachines: 16,
  maxMachineMemoryBytes: 8 * 1024 * 1024 * 1024,
  maxVolumeBytes: 1024 * 1024 * 1024,
  volumeCheckIntervalMs: 1_000,
});

const MICROVM_LIMIT_KINDS: LimitKinds<MicrovmLimits> = {
  bootTimeoutMs: "duration",
  maxExecOutputBytes: "count",
  execGraceMs: "duration",
  maxConsoleBytes: "count",
  maxReadFileBytes: "count",
  fileTransferTimeoutMs: "duration",
  maxControlLineBytes: "count",
  stopTimeoutMs: "duration",
  snapshotTimeoutMs: "duration",
  maxForks: "count",
  kvmProbeTimeoutMs: "duration",
  rootfsHeadroomBytes: "count",
  maxLayerBytes: "count",
  maxMemoryRootBytes: "count",
  maxRunningMachines: "count",
  maxHostMachines: "count",
  maxMachineMemoryBytes: "count",
  maxVolumeBytes: "count",
  volumeCheckIntervalMs: "duration",
};

/** The defaults with `partial`'s fields (undefined ones ignored), each checked; frozen. */
export function resolveMicrovmLimits(partial: Partial<MicrovmLimits> = {}): Readonly<MicrovmLimits> {
  return resolveLimitValues("@atrium/microvm", DEFAULT_MICROVM_LIMITS, MICROVM_LIMIT_KINDS, partial);
}

/**
 * Limits of the micro-VM `CodeExecutor` (src/executor), each one of its options. Those every
 * executor shares (`timeoutMs`, `stopGraceMs`, `watchdogGraceMs`, `maxTransferChars`,
 * `maxOutputChars`, `maxErrorChars`: see kit's `ExecutorLimits`) have the same names and meaning
 * as in QuickJS and Python.
 */
export interface MicroVmExecutorLimits extends ExecutorLimits {
  /**
   * Longest line the host reads from the guest's harness (its answers, images included): code
   * that writes to fd 1 without a newline must not grow the host's line buffer without end.
   */
  maxHarnessLineChars: number;
}

export const DEFAULT_MICRO_VM_EXECUTOR_LIMITS: Readonly<MicroVmExecutorLimits> = Object.freeze({
  timeoutMs: 60_000,
  // SIGINT reaches a step at once; a step that blocks it (a C call, a handler of its own) loses
  // its interpreter after this.
  stopGraceMs: 3_000,
  // The guest keeps the time limit itself (SIGALRM); one that blocks it is killed by the host.
  watchdogGraceMs: 3_000,
  maxTransferChars: 4 * 1024 * 1024,
  maxOutputChars: DEFAULT_MAX_OUTPUT_CHARS,
  maxErrorChars: DEFAULT_SANDBOX_ERROR_CHARS,
  maxHarnessLineChars: 64 * 1024 * 1024,
});

const MICRO_VM_EXECUTOR_LIMIT_KINDS: LimitKinds<MicroVmExecutorLimits> = {
  ...EXECUTOR_LIMIT_KINDS,
  maxHarnessLineChars: "count",
};

export function resolveMicroVmExecutorLimits(
  partial: Partial<MicroVmExecutorLimits> = {},
): Readonly<MicroVmExecutorLimits> {
  return resolveLimitValues(
    "@atrium/microvm executor",
    DEFAULT_MICRO_VM_EXECUTOR_LIMITS,
    MICRO_VM_EXECUTOR_LIMIT_KINDS,
    partial,
  );
}
