export { defaultCacheDir } from "./cache-dir.js";
export {
  CONFIG_FILE_NAME,
  loadVmConfig,
  parseVmConfig,
  type VmConfig,
  type VmConfigInput,
  vmConfigSchema,
} from "./config/vm-config.js";
export { type DoctorReport, doctor } from "./engine/doctor.js";
export { buildBusyboxImage, writeOciLayout } from "./image/busybox-image.js";
export { importImage, type RootFilesystem } from "./image/rootfs.js";
export { DEFAULT_MICROVM_LIMITS, type MicrovmLimits, resolveMicrovmLimits } from "./limits.js";
export {
  type ExecOptions,
  type ExecResult,
  Machine,
  type MachineInfo,
  type MachineOptions,
} from "./machine/machine.js";
export {
  type BootPlan,
  type GuestVolumeMount,
  type PrepareOptions,
  prepareBoot,
} from "./machine/prepare-boot.js";
export { GuestFailureError, GuestFileError, ImageFormatError, MissingDependencyError } from "./vm-errors.js";
