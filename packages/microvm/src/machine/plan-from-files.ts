import { parseVmConfig, type VmConfig } from "../config/vm-config.js";
import type { GuestKernel } from "../engine/kernel.js";
import { findQemu } from "../engine/qemu.js";
import type { ImageRuntimeConfig } from "../image/oci-image.js";
import { type MicrovmLimits, resolveMicrovmLimits } from "../limits.js";
import { allowListForwards } from "../network/allow-list.js";
import { chooseAccelerator, hostTscKhz } from "./accelerator.js";
import { checkHostCapacity } from "./host-capacity.js";
import type { BootPlan } from "./prepare-boot.js";

export interface BootFiles {
  config: VmConfig;
  /** ELF vmlinux. */
  kernel: string;
  /** Built for a root on disk at /dev/vda, with the agent as /init. */
  initramfs: string;
  /** The guest agent binary (only the KVM probe boots it on its own). */
  agent: string;
  rootfs: string;
  kernelRelease: string;
  vmlinuzSha256: string;
  image: { digest: string; config: ImageRuntimeConfig };
  /** The guest writes `rootfs` itself; otherwise its writes go to a throwaway overlay. */
  persistentDisk: boolean;
  /** The allow-list as packed, when `config`'s is a runner's narrower one (see pack-policy.ts). */
  packedAllowHosts?: readonly string[];
}

/**
 * A boot plan from files that were built elsewhere (a pack's sections): this host contributes
 * only QEMU and the accelerator choice, probed with the packed kernel. Its own kernel, modules,
 * toolchain and image tools are not needed.
 */
export async function planFromFiles(
  files: BootFiles,
  options: { cacheDir: string; limits?: Partial<MicrovmLimits> },
): Promise<BootPlan> {
  const config = parseVmConfig(files.config, "packed machine config");
  const limits = resolveMicrovmLimits(options.limits);
  checkHostCapacity(config, limits);
  const qemu = await findQemu(options.cacheDir);
  const kernel: GuestKernel = {
    vmlinuzPath: files.kernel,
    vmlinuxPath: files.kernel,
    modulesDir: "",
    release: files.kernelRelease,
    digest: files.vmlinuzSha256,
  };
  const accelerator = await chooseAccelerator({
    qemu,
    kernel,
    agentPath: files.agent,
    cacheDir: options.cacheDir,
    probeTimeoutMs: limits.kvmProbeTimeoutMs,
  });
  const tscKhz = accelerator.accelerator === "tcg" ? await hostTscKhz() : undefined;
  // The pack's allow-list stays an allow-list: restrict=on plus one relay rule per entry (the
  // packed initramfs already names 10.0.2.100 host.atrium.internal; other names resolve by IP).
  const guestForwards =
    config.network.enabled && config.network.allowHosts.length > 0
      ? allowListForwards(config.network.allowHosts, files.packedAllowHosts)
      : undefined;
  return {
    config,
    limits,
    qemu,
    kernel,
    agentPath: files.agent,
    accelerator,
    rootfs: { diskPath: files.rootfs, treeBytes: 0, digest: files.image.digest, config: files.image.config },
    root: "disk",
    initramfsPath: files.initramfs,
    volumes: [],
    ...(guestForwards ? { guestForwards } : {}),
    ...(tscKhz ? { tscKhz } : {}),
    persistentDisk: files.persistentDisk,
  };
}
