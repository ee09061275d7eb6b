import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildOnce, sha256Hex } from "../cache-dir.js";
import type { GuestKernel } from "../engine/kernel.js";
import { readModule, resolveModules } from "../engine/kernel-modules.js";
import { type CpioEntry, writeCpio } from "../image/cpio.js";
import { MEMORY_ROOT_DIR } from "../image/rootfs.js";

/** The modules every machine loads: the virtio transport and the agent's serial port. */
export const BASE_MODULES = ["virtio_mmio", "virtio_console"] as const;
/**
 * Loaded only for a root on disk. Measured under TCG on a busy host (ATRIUM_VM_TRACE=1): these
 * and the mount took about 1.9 s of the 2.9 s from init to agent ready, ext4.ko alone about 1 s,
 * which is why small images boot with their root in memory instead.
 */
export const DISK_MODULES = ["virtio_blk", "crc32c_generic", "ext4"] as const;
/** Loaded only when the network is on: with it off the guest has no network driver at all. */
export const NETWORK_MODULES = ["virtio_net"] as const;
/** Loaded only when the machine has volumes (host directories over virtio-9p). */
export const VOLUME_MODULES = ["9pnet_virtio", "9p"] as const;

/** Part of the cache key: raised when what goes into an initramfs changes (2: modules unsigned). */
const INITRAMFS_LAYOUT = 2;

/** QEMU user networking's fixed addresses: the guest, its netmask, the gateway (the host), DNS. */
export const USER_NET = {
  address: "10.0.2.15",
  netmask: "255.255.255.0",
  gateway: "10.0.2.2",
  dns: "10.0.2.3",
} as const;

export interface GuestVolume {
  /** The virtio-9p mount tag QEMU and the guest agree on. */
  tag: string;
  guestPath: string;
  readonly: boolean;
}

export interface InitramfsOptions {
  kernel: GuestKernel;
  agentPath: string;
  cacheDir: string;
  network: boolean;
  /**
   * Where the root is: a block device holding ext4, or the image's cpio archive appended to
   * this initramfs (the root in guest memory). Absent: stay in the initramfs.
   */
  root?: { kind: "disk"; device: string } | { kind: "memory"; archivePath: string; imageDigest: string };
  volumes?: readonly GuestVolume[];
  /** Lines the guest init appends to /etc/hosts (allowed host names). */
  hostsEntries?: readonly string[];
}

/**
 * The boot initramfs: the guest agent as /init (it is PID 1: mounts, loads modules, mounts the
 * root, chroots, then serves), the kernel modules it loads, and /atrium/boot.conf saying which.
 * No shell and no busybox: each process a shell script would start costs milliseconds under TCG.
 * Cached by the hash of everything in it.
 */
export async function buildInitramfs(options: InitramfsOptions): Promise<string> {
  const modules = await resolveModules(options.kernel.modulesDir, [
    ...BASE_MODULES,
    ...(options.root?.kind === "disk" ? DISK_MODULES : []),
    ...(options.network ? NETWORK_MODULES : []),
    ...(options.volumes?.length ? VOLUME_MODULES : []),
  ]);
  const agent = await readFile(options.agentPath);
  const conf = [
    // ATRIUM_VM_TRACE=1: the init marks each boot step in the kernel log (see agent.c).
    ...(process.env.ATRIUM_VM_TRACE === "1" ? ["trace"] : []),
    ...modules.map((path) => `module /atrium/modules/${guestModuleName(path)}`),
    ...(options.root?.kind === "disk" ? [`root ${options.root.device}`, "fstype ext4"] : []),
    ...(options.root?.kind === "memory" ? [`memroot /${MEMORY_ROOT_DIR}`] : []),
    ...(options.network
      ? [`net eth0 ${USER_NET.address} ${USER_NET.netmask} ${USER_NET.gateway} ${USER_NET.dns}`]
      : []),
    ...(options.hostsEntries ?? []).map((line) => `hosts ${line}`),
    ...(options.volumes ?? []).map((v) => `volume ${v.tag} ${v.guestPath} ${v.readonly ? "ro" : "rw"}`),
    "",
  ].join("\n");
  const imageDigest = options.root?.kind === "memory" ? options.root.imageDigest : "";
  const key = sha256Hex(
    `${INITRAMFS_LAYOUT}\n${options.kernel.digest}\n${sha256Hex(agent)}\n${conf}\n${imageDigest}`,
  ).slice(0, 32);
  return buildOnce(join(options.cacheDir, "initramfs", `${key}.cpio`), async (tmp) => {
    const entries: CpioEntry[] = [
      { kind: "dir", path: "dev" },
      { kind: "char-device", path: "dev/console", major: 5, minor: 1 },
      { kind: "char-device", path: "dev/null", major: 1, minor: 3, mode: 0o666 },
      { kind: "dir", path: "proc" },
      { kind: "dir", path: "sys" },
      { kind: "dir", path: "atrium" },
      { kind: "dir", path: "atrium/modules" },
      { kind: "file", path: "atrium/boot.conf", data: new TextEncoder().encode(conf) },
      { kind: "file", path: "init", data: agent, mode: 0o755 },
    ];
    for (const path of modules) {
      entries.push({
        kind: "file",
        path: `atrium/modules/${guestModuleName(path)}`,
        data: await readModule(options.kernel.modulesDir, path),
      });
    }
    const boot = writeCpio(entries);
    // The kernel unpacks concatenated archives one after the other (each 4-byte aligned, as
    // writeCpio pads): the image's tree follows the boot files.
    const image = options.root?.kind === "memory" ? await readFile(options.root.archivePath) : undefined;
    await writeFile(tmp, image ? Buffer.concat([boot, image]) : boot);
  });
}

function guestModuleName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1).replace(/\.ko\.(xz|zst|gz)$/, ".ko");
}
