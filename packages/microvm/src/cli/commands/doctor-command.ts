import { defaultCacheDir } from "../../cache-dir.js";
import { doctor } from "../../machine/doctor.js";
import { type CliCommand, parseCommandArgs } from "../cli-command.js";

const USAGE = `Usage: atrium-vm doctor

Reports what this host runs machines with: the engine (KVM or TCG, and why), QEMU and its
version, the kernel, and every missing piece with the command that installs it. Exits 1 when
something is missing.

Options:
  -h, --help   show this help
`;

export const doctorCommand: CliCommand = {
  name: "doctor",
  summary: "check this host: engine, QEMU, kernel, what is missing",
  usage: USAGE,
  async run(argv, io) {
    const args = parseCommandArgs(argv, {}, { min: 0, max: 0, what: "" });
    if (!args) {
      io.stdout.write(USAGE);
      return 0;
    }
    const report = await doctor({ cacheDir: defaultCacheDir(io.env) });
    const lines: string[] = [];
    if (report.engine) lines.push(`engine: ${report.engine.accelerator} (${report.engine.reason})`);
    if (report.qemu) lines.push(`qemu: ${report.qemu.version} (${report.qemu.path})`);
    if (report.kernel) lines.push(`kernel: ${report.kernel.release} (${report.kernel.vmlinuz})`);
    if (report.qemuUid !== undefined)
      lines.push(
        `qemu runs as: uid ${report.qemuUid}${report.qemuUid === process.getuid?.() ? " (this user)" : ""}`,
      );
    for (const missing of report.missing)
      lines.push(`missing: ${missing.what}: ${missing.detail}; install with: ${missing.install}`);
    lines.push(report.ok ? "ok" : "not ready");
    io.stdout.write(`${lines.join("\n")}\n`);
    return report.ok ? 0 : 1;
  },
};
