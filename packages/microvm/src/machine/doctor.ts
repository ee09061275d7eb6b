import { rethrowIfFatal } from "@atrium/spec";
import { APT_PACKAGE_OF, aptCommand } from "../apt-hint.js";
import { defaultCacheDir, exists } from "../cache-dir.js";
import { prepareKernel } from "../engine/kernel.js";
import { findQemu } from "../engine/qemu.js";
import { buildGuestAgent } from "../guest-agent/build-agent.js";
import { resolveMicrovmLimits } from "../limits.js";
import { which } from "../run-command.js";
import { chooseAccelerator } from "./accelerator.js";
import { qemuUser } from "./qemu-user.js";

export interface DoctorReport {
  ok: boolean;
  engine?: { accelerator: "kvm" | "tcg"; reason: string };
  qemu?: { path: string; version: string };
  kernel?: { release: string; vmlinuz: string; vmlinux: string; modulesDir: string };
  /** The user QEMU runs as: an unprivileged one when this process is root, else this process's. */
  qemuUid?: number;
  /** Each missing piece with the command that installs it. */
  missing: { what: string; install: string; detail: string }[];
}

/**
 * What this host can run: QEMU and its version, the kernel, the accelerator a probe boot picks,
 * and every missing piece with the apt command that installs it. Builds (and caches) the
 * decompressed kernel and the guest agent on the way, so a healthy report means a machine boots.
 */
export async function doctor(options: { cacheDir?: string } = {}): Promise<DoctorReport> {
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const report: DoctorReport = { ok: false, missing: [] };
  const miss = (what: string, pkg: string, error: unknown) =>
    report.missing.push({
      what,
      install: aptCommand(pkg),
      detail: error instanceof Error ? error.message : String(error),
    });
  const attempt = async <T>(what: string, pkg: string, step: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await step();
    } catch (error) {
      rethrowIfFatalUnlessMissing(error);
      miss(what, pkg, error);
      return undefined;
    }
  };
  const qemu = await attempt("QEMU", APT_PACKAGE_OF.qemu, () => findQemu(cacheDir));
  if (qemu) report.qemu = qemu;
  const kernel = await attempt("kernel", APT_PACKAGE_OF.kernel, () => prepareKernel(cacheDir));
  if (kernel)
    report.kernel = {
      release: kernel.release,
      vmlinuz: kernel.vmlinuzPath,
      vmlinux: kernel.vmlinuxPath,
      modulesDir: kernel.modulesDir,
    };
  for (const [tool, pkg] of [
    ["mke2fs", APT_PACKAGE_OF.mke2fs],
    ["xz", APT_PACKAGE_OF.xz],
    ["qemu-img", APT_PACKAGE_OF.qemuImg],
  ] as const) {
    if (!(await which(tool))) miss(tool, pkg, `${tool} is not on PATH`);
  }
  // A root host never runs QEMU as root: it needs setpriv and unshare to drop it (qemu-process.ts).
  const user = qemuUser();
  report.qemuUid = user?.uid ?? (process.getuid?.() as number);
  if (user) {
    for (const tool of ["setpriv", "unshare"]) {
      if (!(await which(tool)))
        miss(tool, "util-linux", `${tool} is not on PATH; QEMU would not start rather than run as root`);
    }
  }
  if (!(await exists("/bin/busybox")))
    miss("busybox (test image)", APT_PACKAGE_OF.busybox, "/bin/busybox is missing");
  const agentPath = await attempt("guest agent toolchain (musl-gcc)", APT_PACKAGE_OF.musl, () =>
    buildGuestAgent(cacheDir),
  );
  if (qemu && kernel && agentPath) {
    const limits = resolveMicrovmLimits();
    const choice = await chooseAccelerator({
      qemu,
      kernel,
      agentPath,
      cacheDir,
      probeTimeoutMs: limits.kvmProbeTimeoutMs,
    });
    report.engine = { accelerator: choice.accelerator, reason: choice.reason };
  }
  report.ok = report.missing.length === 0;
  return report;
}

function rethrowIfFatalUnlessMissing(error: unknown): void {
  // Missing tools are what the doctor reports; other fatal errors (aborts) still end it.
  if (error instanceof Error && error.name === "MissingDependencyError") return;
  rethrowIfFatal(error);
}
