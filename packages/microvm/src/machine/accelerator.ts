import type { ChildProcess } from "node:child_process";
import { constants } from "node:fs";
import { access, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Accelerator, consoleOnlyArgs, kernelCommandLine } from "../boot/qemu-args.js";
import { buildOnce, sha256Hex } from "../cache-dir.js";
import type { GuestKernel } from "../engine/kernel.js";
import type { QemuBinary } from "../engine/qemu.js";
import { writeCpio } from "../image/cpio.js";
import { openBootFiles } from "./boot-files.js";
import { spawnQemu } from "./qemu-process.js";
import { qemuUser } from "./qemu-user.js";

export interface AcceleratorChoice {
  accelerator: Accelerator;
  /** Why this one: "probe boot succeeded", "/dev/kvm is not accessible", ... */
  reason: string;
}

const PROBE_MARKER = "atrium-probe-ok";

/**
 * KVM when a real boot under it reaches userspace, TCG otherwise. A probe and not just a look at
 * /dev/kvm: on these machines /dev/kvm is a paravirtual KVM (PVM) that hangs stock kernels, so
 * only a boot tells. The answer is cached per kernel and QEMU version (the probe costs seconds);
 * `ATRIUM_VM_ACCEL=kvm|tcg` skips it.
 */
export async function chooseAccelerator(options: {
  qemu: QemuBinary;
  kernel: GuestKernel;
  agentPath: string;
  cacheDir: string;
  probeTimeoutMs: number;
  env?: NodeJS.ProcessEnv;
}): Promise<AcceleratorChoice> {
  const forced = (options.env ?? process.env).ATRIUM_VM_ACCEL;
  if (forced === "kvm" || forced === "tcg") return { accelerator: forced, reason: "set by ATRIUM_VM_ACCEL" };
  try {
    await access("/dev/kvm", constants.R_OK | constants.W_OK);
  } catch {
    return { accelerator: "tcg", reason: "/dev/kvm is missing or not accessible" };
  }
  // Per QEMU and kernel, not per agent: whether KVM boots this kernel does not depend on the init.
  const key = sha256Hex(`${options.qemu.path}\n${options.qemu.version}\n${options.kernel.digest}`).slice(
    0,
    32,
  );
  const recordPath = join(options.cacheDir, "probe", `${key}.json`);
  try {
    return JSON.parse(await readFile(recordPath, "utf8")) as AcceleratorChoice;
  } catch {
    // not probed yet
  }
  const ok = await probeBoot({ ...options, accelerator: "kvm", timeoutMs: options.probeTimeoutMs });
  const choice: AcceleratorChoice = ok
    ? { accelerator: "kvm", reason: "a probe boot under KVM reached userspace" }
    : {
        accelerator: "tcg",
        reason: `a probe boot under KVM did not reach userspace within ${options.probeTimeoutMs} ms`,
      };
  await buildOnce(recordPath, (tmp) => writeFile(tmp, JSON.stringify(choice)));
  return choice;
}

/** Boots the kernel into an initramfs whose init prints a marker and powers off. */
export async function probeBoot(options: {
  qemu: QemuBinary;
  kernel: GuestKernel;
  agentPath: string;
  cacheDir: string;
  accelerator: Accelerator;
  timeoutMs: number;
}): Promise<boolean> {
  const agent = await readFile(options.agentPath);
  const initramfs = await buildOnce(
    join(options.cacheDir, "probe", `${sha256Hex(agent).slice(0, 32)}.cpio`),
    (tmp) =>
      writeFile(
        tmp,
        writeCpio([
          { kind: "dir", path: "dev" },
          { kind: "char-device", path: "dev/console", major: 5, minor: 1 },
          { kind: "dir", path: "atrium" },
          { kind: "file", path: "atrium/boot.conf", data: new TextEncoder().encode("probe\n") },
          { kind: "file", path: "init", data: agent, mode: 0o755 },
        ]),
      ),
  );
  const tscKhz = options.accelerator === "tcg" ? await hostTscKhz() : undefined;
  const append = kernelCommandLine({
    accelerator: options.accelerator,
    kernelPath: options.kernel.vmlinuxPath,
    initramfsPath: initramfs,
    cpus: 1,
    memoryMiB: 128,
    agentSocketPath: "",
    tscKhz,
  });
  const args = consoleOnlyArgs(options.accelerator, 128, append);
  // Like every QEMU here: unprivileged when this process is root, its files as inherited fds.
  const user = qemuUser();
  const files = await openBootFiles({
    kernel: options.kernel.vmlinuxPath,
    initramfs,
    diskWritable: false,
    user,
  });
  let child: ChildProcess;
  try {
    child = spawnQemu(options.qemu.path, args, { fds: files.fds, user, noNetwork: true }).process;
  } finally {
    await files.close();
  }
  return new Promise((resolve) => {
    let output = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.on("close", () => {
      clearTimeout(timer);
      resolve(output.includes(PROBE_MARKER));
    });
  });
}

/**
 * The host's TSC rate in kHz (from /proc/cpuinfo), which a TCG guest's TSC runs at. Undefined
 * when unknown; the guest then calibrates itself, which works on an idle host.
 */
export async function hostTscKhz(): Promise<number | undefined> {
  try {
    const cpuinfo = await readFile("/proc/cpuinfo", "utf8");
    const mhz = /^cpu MHz\s*:\s*([\d.]+)/m.exec(cpuinfo)?.[1];
    return mhz ? Math.round(Number(mhz) * 1000) : undefined;
  } catch {
    return undefined;
  }
}
