import { defaultCacheDir } from "../cache-dir.js";
import { Machine } from "../machine/machine.js";
import { planFromFiles } from "../machine/plan-from-files.js";
import { type BootPlan, type PrepareOptions, prepareBoot } from "../machine/prepare-boot.js";
import { machinePaths, readNamedMachine, type StoreOptions } from "./machine-store.js";

/**
 * The boot plan of a named machine: its root is its own disk, written in place (no overlay), so
 * what a command writes is there at the next boot, in this process or a later one.
 */
export async function planNamedMachine(
  name: string,
  options: StoreOptions & PrepareOptions = {},
): Promise<BootPlan> {
  const record = await readNamedMachine(name, options);
  const paths = machinePaths(name, options);
  if (record.boot === "pack") {
    return planFromFiles(
      {
        config: record.config,
        kernel: paths.kernel,
        initramfs: paths.initramfs,
        agent: paths.agent,
        rootfs: paths.disk,
        kernelRelease: record.kernelRelease ?? "unknown",
        vmlinuzSha256: record.vmlinuzSha256 ?? "",
        image: record.image,
        persistentDisk: true,
        ...(record.packedAllowHosts ? { packedAllowHosts: record.packedAllowHosts } : {}),
      },
      { cacheDir: options.cacheDir ?? defaultCacheDir(), limits: options.limits },
    );
  }
  const plan = await prepareBoot(record.config, { ...options, root: "disk" });
  return { ...plan, rootfs: { ...plan.rootfs, diskPath: paths.disk }, persistentDisk: true };
}

/** Boots a named machine from its disk. The machine lives as long as this process at most. */
export async function bootNamedMachine(
  name: string,
  options: StoreOptions & PrepareOptions = {},
): Promise<Machine> {
  const plan = await planNamedMachine(name, options);
  return Machine.boot(plan, { onProgress: options.onProgress });
}
