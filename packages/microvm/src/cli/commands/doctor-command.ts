import { defineCommand, jsonText } from "@atrium/kit/cli";
import { defaultCacheDir } from "../../cache-dir.js";
import { doctor } from "../../machine/doctor.js";

export const doctorCommand = defineCommand({
  name: "doctor",
  summary: "check this host: engine, QEMU, kernel, what is missing",
  usage: "[--json]",
  description:
    "Reports what this host runs machines with: the engine (KVM or TCG, and why), QEMU and its\nversion, the kernel, and every missing piece with the command that installs it. Exits 1 when\nsomething is missing.",
  options: { json: { type: "boolean", help: "print the report as JSON" } },
  async run({ values }, io) {
    const report = await doctor({ cacheDir: defaultCacheDir(io.env) });
    if (values.json) {
      io.stdout.write(jsonText(report));
      return report.ok ? 0 : 1;
    }
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
});
