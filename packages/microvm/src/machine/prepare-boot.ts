import { realpath, stat } from "node:fs/promises";
import { resolve as resolvePath } from "node:path";
import { ConfigError } from "@atrium/spec";
import { buildInitramfs } from "../boot/initramfs.js";
import { defaultCacheDir } from "../cache-dir.js";
import { escapesBase, refusedHostPath, refuseHostPath } from "../config/host-path-policy.js";
import { parseVmConfig, type VmConfig, type VmConfigInput } from "../config/vm-config.js";
import { type GuestKernel, prepareKernel } from "../engine/kernel.js";
import { findQemu, type QemuBinary } from "../engine/qemu.js";
import { buildGuestAgent } from "../guest-agent/build-agent.js";
import { buildBusyboxImage } from "../image/busybox-image.js";
import { importImage, type RootFilesystem } from "../image/rootfs.js";
import { type MicrovmLimits, resolveMicrovmLimits } from "../limits.js";
import { allowListForwards, type GuestForward } from "../network/allow-list.js";
import { type AcceleratorChoice, chooseAccelerator, hostTscKhz } from "./accelerator.js";
import { checkHostCapacity } from "./host-capacity.js";
import { qemuUser, userCanUse } from "./qemu-user.js";

export interface PrepareOptions {
  /** Built artifacts (kernel, agent, initramfs, root filesystems); default `defaultCacheDir()`. */
  cacheDir?: string;
  limits?: Partial<MicrovmLimits>;
  /** A vmlinuz (or ELF vmlinux) other than the newest in /boot, and its modules directory. */
  kernel?: { vmlinuzPath: string; modulesDir?: string };
  /** Called as the machine gets ready ("image", "kernel", "boot", ...), for progress output. */
  onProgress?: (stage: string) => void;
  /**
   * Where the root filesystem lives. "memory": the image's tree is unpacked by the kernel from
   * the initramfs (no disk driver, no ext4 module: the fastest boot); "disk": the image's ext4
   * on virtio-blk behind a throwaway overlay. Default: memory for images up to
   * `maxMemoryRootBytes` that take at most a quarter of the machine's memory, disk otherwise.
   */
  root?: "memory" | "disk";
}

export interface GuestVolumeMount {
  tag: string;
  hostPath: string;
  guestPath: string;
  readonly: boolean;
}

/**
 * Everything a boot needs, built and cached: QEMU, the kernel, the accelerator, the image's root
 * filesystem, the initramfs. The seam for what comes next: a pool boots many machines from one
 * plan, a pack writes a plan's files into one archive.
 */
export interface BootPlan {
  config: VmConfig;
  limits: Readonly<MicrovmLimits>;
  qemu: QemuBinary;
  kernel: GuestKernel;
  agentPath: string;
  accelerator: AcceleratorChoice;
  rootfs: RootFilesystem;
  root: "memory" | "disk";
  initramfsPath: string;
  volumes: GuestVolumeMount[];
  /** With `network.allowHosts`: the relay rules (the network is otherwise restricted). */
  guestForwards?: GuestForward[];
  /** The host's TSC rate for a TCG guest (see kernelCommandLine). */
  tscKhz?: number;
  /**
   * The guest writes `rootfs.diskPath` itself (a named machine's own disk). Default: its writes
   * go to a throwaway overlay, so the image's cached disk is never written.
   */
  persistentDisk?: boolean;
}

/** Validates the config and builds (or finds cached) every artifact a boot needs. */
export async function prepareBoot(
  config: VmConfigInput | VmConfig,
  options: PrepareOptions = {},
): Promise<BootPlan> {
  const vm = parseVmConfig(config);
  const limits = resolveMicrovmLimits(options.limits);
  checkHostCapacity(vm, limits);
  const volumes = await checkVolumes(vm);
  const guestForwards =
    vm.network.enabled && vm.network.allowHosts.length > 0
      ? allowListForwards(vm.network.allowHosts)
      : undefined;
  if (!vm.network.enabled && vm.network.allowHosts.length > 0) {
    throw new ConfigError(
      "network.allowHosts (allow_hosts in atrium-vm.toml): an allow-list needs the network on: set network.enabled = true",
    );
  }
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const progress = options.onProgress ?? (() => {});
  progress("engine");
  const qemuBinary = await findQemu(cacheDir);
  progress("kernel");
  const kernel = await prepareKernel(cacheDir, options.kernel ?? {});
  progress("agent");
  const agentPath = await buildGuestAgent(cacheDir);
  const choice = await chooseAccelerator({
    qemu: qemuBinary,
    kernel,
    agentPath,
    cacheDir,
    probeTimeoutMs: limits.kvmProbeTimeoutMs,
  });
  progress("image");
  const imageSource = vm.image === "busybox" ? await buildBusyboxImage(cacheDir) : vm.image;
  const rootfs = await importImage(imageSource, {
    cacheDir,
    maxLayerBytes: limits.maxLayerBytes,
    headroomBytes: limits.rootfsHeadroomBytes,
    maxMemoryRootBytes: limits.maxMemoryRootBytes,
  });
  const rootKind = chooseRoot(options.root, rootfs, vm.memory, limits);
  const initramfsPath = await buildInitramfs({
    kernel,
    agentPath,
    cacheDir,
    network: vm.network.enabled,
    root:
      rootKind === "memory"
        ? { kind: "memory", archivePath: rootfs.archivePath as string, imageDigest: rootfs.digest }
        : { kind: "disk", device: "/dev/vda" },
    volumes,
    // Deduplicated: every loopback entry shares one address and name.
    hostsEntries: [
      ...new Set(
        (guestForwards ?? []).flatMap((forward) => (forward.hostsEntry ? [forward.hostsEntry] : [])),
      ),
    ],
  });

  return {
    config: vm,
    limits,
    qemu: qemuBinary,
    kernel,
    agentPath,
    accelerator: choice,
    rootfs,
    root: rootKind,
    initramfsPath,
    volumes,
    ...(guestForwards ? { guestForwards } : {}),
    ...(choice.accelerator === "tcg" ? { tscKhz: await hostTscKhz() } : {}),
  };
}

/**
 * Each volume's host directory: it exists, it is not one the host-path rules refuse (checked on
 * its real path, so a symlink to /etc is /etc), a relative one does not climb out of the working
 * directory, and QEMU's user can use it (a root host runs QEMU unprivileged, see qemu-user.ts).
 */
async function checkVolumes(vm: VmConfig): Promise<GuestVolumeMount[]> {
  const user = qemuUser();
  const volumes: GuestVolumeMount[] = [];
  for (const [index, volume] of vm.volumes.entries()) {
    const unsafe = volume.unsafeAllowHostPath === true;
    if (!unsafe && escapesBase(volume.host, process.cwd())) {
      refuseHostPath(
        index,
        `${JSON.stringify(volume.host)} climbs out of the working directory (${process.cwd()}) to ${resolvePath(volume.host)}`,
      );
    }
    const info = await stat(volume.host).catch(() => undefined);
    if (!info?.isDirectory()) {
      throw new ConfigError(
        `volumes.${index}.host: ${volume.host} is not a directory on the host; create it or fix the path`,
      );
    }
    const hostPath = await realpath(volume.host);
    const reason = unsafe ? undefined : refusedHostPath(hostPath);
    if (reason) refuseHostPath(index, reason);
    if (user && !userCanUse(user, hostPath, !volume.readonly)) {
      throw new ConfigError(
        `volumes.${index}.host: ${hostPath} is not ${volume.readonly ? "readable" : "writable"} by uid ${user.uid}, the unprivileged user QEMU runs as; give it that user (chown ${user.uid}:${user.gid} ${hostPath}) or run QEMU as another (ATRIUM_VM_QEMU_UID)`,
      );
    }
    volumes.push({ tag: `vol${index}`, hostPath, guestPath: volume.guest, readonly: volume.readonly });
  }
  return volumes;
}

function chooseRoot(
  asked: "memory" | "disk" | undefined,
  rootfs: RootFilesystem,
  memoryMiB: number,
  limits: Readonly<MicrovmLimits>,
): "memory" | "disk" {
  const fitsMemory = rootfs.archivePath !== undefined && rootfs.treeBytes * 4 <= memoryMiB * 1024 * 1024;
  if (asked === "memory" && !fitsMemory) {
    throw new ConfigError(
      `root: "memory" needs an image of at most maxMemoryRootBytes (${limits.maxMemoryRootBytes}) and a quarter of the machine's memory; this one takes ${rootfs.treeBytes} bytes: use root "disk" or more memory`,
    );
  }
  return asked ?? (fitsMemory ? "memory" : "disk");
}
