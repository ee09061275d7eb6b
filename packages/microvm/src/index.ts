export { defaultCacheDir } from "./cache-dir.js";
export { defaultStateDir } from "./config/state-dir.js";
export {
  CONFIG_FILE_NAME,
  loadVmConfig,
  parseVmConfig,
  type VmConfig,
  type VmConfigInput,
  vmConfigSchema,
} from "./config/vm-config.js";
export {
  GuestFailureError,
  GuestFileError,
  ImageFormatError,
  MissingDependencyError,
  PackFormatError,
  RequestTooLargeError,
  SnapshotFormatError,
  SnapshotRefusedError,
} from "./errors.js";
export {
  bootPythonMachine,
  type ExecutorSnapshotNote,
  MicroVmExecutor,
  type MicroVmExecutorOptions,
  type MicroVmExecutorRestoreOptions,
  microVmCapabilities,
  type ToolCallAnswer,
} from "./executor/micro-vm-executor.js";
export {
  microVmExecutorFactory,
  type SharedMachineExecutorFactory,
  sharedMachineExecutorFactory,
} from "./executor/micro-vm-executor-factory.js";
export { buildBusyboxImage } from "./image/busybox-image.js";
export { buildDebianPythonImage, type PythonImageOptions } from "./image/debian-python-image.js";
export { writeOciLayout } from "./image/oci-layout-writer.js";
export { importImage, type RootFilesystem } from "./image/rootfs.js";
export {
  DEFAULT_MICRO_VM_EXECUTOR_LIMITS,
  DEFAULT_MICROVM_LIMITS,
  type MicroVmExecutorLimits,
  type MicrovmLimits,
  resolveMicroVmExecutorLimits,
  resolveMicrovmLimits,
} from "./limits.js";
export { type DoctorReport, doctor } from "./machine/doctor.js";
export {
  type ExecControl,
  type ExecOptions,
  type ExecResult,
  type FileTransferOptions,
  Machine,
  type MachineInfo,
  type MachineOptions,
  type RestoreOptions,
  type SnapshotInfo,
  type SnapshotOptions,
} from "./machine/machine.js";
export {
  type BootPlan,
  type GuestVolumeMount,
  type PrepareOptions,
  prepareBoot,
} from "./machine/prepare-boot.js";
export { DEFAULT_QEMU_UID, type QemuUser, qemuUser } from "./machine/qemu-user.js";
export { readSnapshotManifest, type SnapshotManifest } from "./machine/snapshot-file.js";
export { bootNamedMachine, planNamedMachine } from "./named-machine/boot-named-machine.js";
export {
  createNamedMachine,
  listNamedMachines,
  type NamedMachineRecord,
  type NamedMachineStatus,
  readNamedMachine,
  removeNamedMachine,
} from "./named-machine/machine-store.js";
export { PACK_FORMAT_VERSION, type PackManifest, type PackSection } from "./pack/pack-format.js";
export {
  type BootPackOptions,
  bootPack,
  importPack,
  type PackMachineOptions,
  packMachine,
} from "./pack/pack-machine.js";
export { applyPackPolicy, type PackRunPolicy } from "./pack/pack-policy.js";
export { extractPack, readPackManifest } from "./pack/read-pack.js";
export { WarmPool, type WarmPoolOptions } from "./pool/warm-pool.js";
