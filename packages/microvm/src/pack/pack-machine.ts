import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "@atrium/spec";
import { defaultCacheDir } from "../cache-dir.js";
import { parseVmConfig, type VmConfig, type VmConfigInput } from "../config/vm-config.js";
import { Machine } from "../machine/machine.js";
import { planFromFiles } from "../machine/plan-from-files.js";
import { type BootPlan, type PrepareOptions, prepareBoot } from "../machine/prepare-boot.js";
import { readSnapshotManifest } from "../machine/snapshot-file.js";
import { planNamedMachine } from "../named-machine/boot-named-machine.js";
import {
  machinePaths,
  type NamedMachineRecord,
  type StoreOptions,
  servingPid,
} from "../named-machine/machine-store.js";
import type { PackManifest } from "./pack-format.js";
import { applyPackPolicy, type PackRunPolicy } from "./pack-policy.js";
import { extractPack } from "./read-pack.js";
import { writePack } from "./write-pack.js";

export type PackMachineOptions = StoreOptions &
  PrepareOptions & {
    /** The pack file to write. */
    out: string;
    /**
     * A snapshot of this machine (`machine.snapshot`) for `bootPack` to restore instead of
     * booting: taken of a machine with its root on disk (`{ root: "disk" }` for a config), the
     * network off, and this image and kernel. For a named machine, of it running.
     */
    snapshot?: string;
  } & ({ name: string; config?: undefined } | { config: VmConfigInput | VmConfig; name?: undefined });

/**
 * Packs a machine into one file: a named machine with its disk as it is now (it must be
 * stopped, so the disk is consistent), or a fresh machine from a config (the image's disk as
 * built). The pack holds everything the guest boots (kernel, initramfs with the agent, disk),
 * so another host needs only QEMU.
 */
export async function packMachine(options: PackMachineOptions): Promise<PackManifest> {
  const outDir = dirname(resolve(options.out));
  if (!(await stat(outDir).catch(() => undefined))?.isDirectory()) {
    throw new ConfigError(`out: ${outDir} is not a directory; create it first or write the pack elsewhere`);
  }
  let plan: BootPlan;
  let machine: string | undefined;
  if (options.name !== undefined) {
    machine = options.name;
    const pid = await servingPid(options.name, options);
    if (pid) {
      throw new ConfigError(
        `machine ${options.name} is running (served by pid ${pid}); stop it first (atrium-vm stop ${options.name}) so its disk is consistent`,
      );
    }
    plan = await planNamedMachine(options.name, options);
  } else {
    plan = await prepareBoot(parseVmConfig(options.config), { ...options, root: "disk" });
  }
  if (plan.config.volumes.length > 0) {
    throw new ConfigError(
      "volumes: a pack cannot carry host directories (they stay on this host); remove the volumes from the config to pack it",
    );
  }
  if (options.snapshot) await checkPackableSnapshot(options.snapshot, plan);
  options.onProgress?.("pack");
  return writePack(
    options.out,
    {
      createdAt: new Date().toISOString(),
      ...(machine ? { machine } : {}),
      image: { digest: plan.rootfs.digest, config: plan.rootfs.config },
      kernel: { release: plan.kernel.release, vmlinuzSha256: plan.kernel.digest },
      root: "disk",
    },
    {
      config: { bytes: Buffer.from(JSON.stringify(plan.config)) },
      kernel: { path: plan.kernel.vmlinuxPath },
      initramfs: { path: plan.initramfsPath },
      agent: { path: plan.agentPath },
      rootfs: { path: plan.rootfs.diskPath },
      ...(options.snapshot ? { snapshot: { path: options.snapshot } } : {}),
    },
  );
}

/**
 * A snapshot a pack can carry: it must restore with the pack's own files, and under any runner's
 * policy, which can take the network away but not a running network device.
 */
async function checkPackableSnapshot(path: string, plan: BootPlan): Promise<void> {
  const snapshot = await readSnapshotManifest(path);
  const problem =
    snapshot.root !== "disk"
      ? 'its machine had its root in memory; take it of a machine created with { root: "disk" }'
      : snapshot.config.network.enabled
        ? "its machine had the network on, which a runner's policy may not allow; take it with the network off"
        : snapshot.imageDigest !== plan.rootfs.digest
          ? `it is of image ${snapshot.imageDigest}, the pack's is ${plan.rootfs.digest}`
          : snapshot.kernelRelease !== plan.kernel.release
            ? `it is of kernel ${snapshot.kernelRelease}, the pack's is ${plan.kernel.release}`
            : undefined;
  if (problem) throw new ConfigError(`snapshot: ${path} cannot go in this pack: ${problem}`);
}

export interface BootPackOptions {
  /** Where the pack's files are unpacked; the caller owns it (the CLI uses a temporary one). */
  dir: string;
  cacheDir?: string;
  limits?: PrepareOptions["limits"];
  onProgress?: (stage: string) => void;
  /** The guest writes the unpacked disk in `dir` (default: a throwaway overlay over it). */
  persistentDisk?: boolean;
  /** What this host lets the pack have: by default no network and no ports (see PackRunPolicy). */
  policy?: PackRunPolicy;
  /** Boot the pack afresh even when it carries a snapshot (which is otherwise restored). */
  fresh?: boolean;
}

/**
 * Verifies a pack (every section and the whole file) and boots it, or, when it carries a
 * snapshot, restores that: the machine resumes where it was packed.
 */
export async function bootPack(path: string, options: BootPackOptions): Promise<Machine> {
  options.onProgress?.("verify");
  const { manifest, files } = await extractPack(path, options.dir);
  const packed = parseVmConfig(JSON.parse(await readFile(files.config, "utf8")), `${path} config`);
  const config = applyPackPolicy(packed, options.policy);
  const plan = await planFromFiles(
    {
      config,
      packedAllowHosts: packed.network.allowHosts,
      kernel: files.kernel,
      initramfs: files.initramfs,
      agent: files.agent,
      rootfs: files.rootfs,
      kernelRelease: manifest.kernel.release,
      vmlinuzSha256: manifest.kernel.vmlinuzSha256,
      image: manifest.image,
      persistentDisk: options.persistentDisk ?? false,
    },
    { cacheDir: options.cacheDir ?? defaultCacheDir(), limits: options.limits },
  );
  if (files.snapshot && !options.fresh)
    return Machine.restore(files.snapshot, {
      plan,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  return Machine.boot(plan, { onProgress: options.onProgress });
}

/**
 * Makes a named machine of a pack: its disk and boot files kept in the machine's directory. The
 * machine gets the pack's config under `options.policy` (default: no network, no ports), fixed at
 * import, so every later `start` boots it the same way.
 */
export async function importPack(
  path: string,
  name: string,
  options: StoreOptions & { policy?: PackRunPolicy } = {},
): Promise<NamedMachineRecord> {
  const paths = machinePaths(name, options);
  if (await stat(paths.dir).catch(() => undefined)) {
    throw new ConfigError(
      `a machine named ${name} already exists; remove it first (atrium-vm rm ${name}) or pick another name`,
    );
  }
  await mkdir(join(paths.dir, ".."), { recursive: true });
  const staging = await mkdtemp(`${paths.dir}.tmp-`);
  try {
    const { manifest, files } = await extractPack(path, staging);
    const packed = parseVmConfig(JSON.parse(await readFile(files.config, "utf8")), `${path} config`);
    const config = applyPackPolicy(packed, options.policy);
    await rm(files.config);
    // A named machine boots from its disk; a snapshot's memory would not match it for long.
    if (files.snapshot) await rm(files.snapshot);
    const record: NamedMachineRecord = {
      name,
      config,
      packedAllowHosts: packed.network.allowHosts,
      createdAt: new Date().toISOString(),
      image: manifest.image,
      boot: "pack",
      kernelRelease: manifest.kernel.release,
      vmlinuzSha256: manifest.kernel.vmlinuzSha256,
    };
    await writeFile(join(staging, "machine.json"), `${JSON.stringify(record, null, 2)}\n`);
    await rename(staging, paths.dir);
    return record;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}
