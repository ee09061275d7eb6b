import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { ConfigError } from "@atrium/spec";
import { defaultStateDir } from "../config/state-dir.js";
import { parseVmConfig, type VmConfig, type VmConfigInput } from "../config/vm-config.js";
import type { ImageRuntimeConfig } from "../image/oci-image.js";
import { copySparse } from "../image/sparse-blocks.js";
import { type PrepareOptions, prepareBoot } from "../machine/prepare-boot.js";

const NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/;

/** What `machine.json` in a named machine's directory records. */
export interface NamedMachineRecord {
  name: string;
  config: VmConfig;
  createdAt: string;
  image: { digest: string; config: ImageRuntimeConfig };
  /**
   * "host": boots with this host's kernel and agent (rebuilt as they change); "pack": boots the
   * kernel, initramfs and agent that came in the pack it was imported from, kept beside its disk.
   */
  boot: "host" | "pack";
  kernelRelease?: string;
  vmlinuzSha256?: string;
  /** A pack's allow-list as packed (its guest /etc/hosts addresses); `config` may narrow it. */
  packedAllowHosts?: string[];
}

export interface NamedMachineStatus {
  name: string;
  image: string;
  createdAt: string;
  /** The process serving it (`atrium-vm start`), when one is. */
  pid?: number;
}

export interface StoreOptions {
  stateDir?: string;
}

/** A named machine's files: its record, its own writable disk, and (while running) its control socket. */
export function machinePaths(name: string, options: StoreOptions = {}) {
  assertName(name);
  const dir = join(options.stateDir ?? defaultStateDir(), "machines", name);
  return {
    dir,
    record: join(dir, "machine.json"),
    disk: join(dir, "disk.ext4"),
    /** Boot files of a machine imported from a pack. */
    kernel: join(dir, "vmlinux"),
    initramfs: join(dir, "initramfs.cpio"),
    agent: join(dir, "agent"),
    socket: join(dir, "control.sock"),
    pid: join(dir, "serve.pid"),
  };
}

export function assertName(name: string): void {
  if (!NAME.test(name)) {
    throw new ConfigError(
      `machine name ${JSON.stringify(name)}: use 1-63 characters of a-z, 0-9, "_", "." and "-", starting with a letter or digit`,
    );
  }
}

/**
 * Creates a named machine: builds its image (cached) and gives it its own copy of the image's
 * disk, which every boot of the machine writes (holes kept, so a 300 MB busybox disk takes about
 * 19 MB). Not booted: `bootNamedMachine` does that.
 */
export async function createNamedMachine(
  name: string,
  config: VmConfigInput | VmConfig,
  options: StoreOptions & PrepareOptions = {},
): Promise<NamedMachineRecord> {
  const paths = machinePaths(name, options);
  if (await stat(paths.dir).catch(() => undefined)) {
    throw new ConfigError(
      `a machine named ${name} already exists; remove it first (atrium-vm rm ${name}) or pick another name`,
    );
  }
  const vm = parseVmConfig(config);
  const plan = await prepareBoot(vm, { ...options, root: "disk" });
  const staging = `${paths.dir}.tmp-${process.pid}`;
  await mkdir(staging, { recursive: true });
  try {
    options.onProgress?.("disk");
    await copySparse(plan.rootfs.diskPath, join(staging, "disk.ext4"));
    const record: NamedMachineRecord = {
      name,
      config: vm,
      createdAt: new Date().toISOString(),
      image: { digest: plan.rootfs.digest, config: plan.rootfs.config },
      boot: "host",
    };
    await writeFile(join(staging, "machine.json"), `${JSON.stringify(record, null, 2)}\n`);
    await mkdir(join(paths.dir, ".."), { recursive: true });
    await rename(staging, paths.dir);
    return record;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

export async function readNamedMachine(
  name: string,
  options: StoreOptions = {},
): Promise<NamedMachineRecord> {
  const paths = machinePaths(name, options);
  try {
    return JSON.parse(await readFile(paths.record, "utf8")) as NamedMachineRecord;
  } catch {
    throw new ConfigError(`no machine named ${name}; create it with: atrium-vm create ${name}`);
  }
}

/**
 * The pid of the process serving the machine: its pid file names a live process and its control
 * socket answers (a pid alone could have been reused after that process was killed).
 */
export async function servingPid(name: string, options: StoreOptions = {}): Promise<number | undefined> {
  const paths = machinePaths(name, options);
  const pid = Number.parseInt(await readFile(paths.pid, "utf8").catch(() => ""), 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  return (await socketAnswers(paths.socket)) ? pid : undefined;
}

function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export async function listNamedMachines(options: StoreOptions = {}): Promise<NamedMachineStatus[]> {
  const root = join(options.stateDir ?? defaultStateDir(), "machines");
  const names = (await readdir(root).catch(() => [] as string[])).filter((name) => NAME.test(name)).sort();
  const list: NamedMachineStatus[] = [];
  for (const name of names) {
    const record = await readNamedMachine(name, options).catch(() => undefined);
    if (!record) continue;
    const pid = await servingPid(name, options);
    list.push({ name, image: record.config.image, createdAt: record.createdAt, ...(pid ? { pid } : {}) });
  }
  return list;
}

/** Deletes a named machine and its disk; refused while a process serves it. */
export async function removeNamedMachine(name: string, options: StoreOptions = {}): Promise<void> {
  await readNamedMachine(name, options);
  const pid = await servingPid(name, options);
  if (pid)
    throw new ConfigError(
      `machine ${name} is running (served by pid ${pid}); stop it first: atrium-vm stop ${name}`,
    );
  await rm(machinePaths(name, options).dir, { recursive: true, force: true });
}
