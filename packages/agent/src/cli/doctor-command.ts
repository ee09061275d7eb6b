import { defineCommand, EXIT_CODES, jsonText } from "@atrium/kit/cli";
import { formatIsolationReport, isolationReport } from "./isolation-report.js";

export const doctorCommand = defineCommand({
  name: "doctor",
  summary: "say which sandbox isolations this host can run",
  usage: "[--json]",
  description:
    'Says which sandbox isolations this host can run: QuickJS in a worker thread, and the OS sandbox\n(bubblewrap) that Python uses by default and QuickJS with isolation "process". Exits 1 when\nthe OS sandbox cannot start.',
  options: { json: { type: "boolean", help: "print the report as JSON" } },
  async run({ values }, io) {
    const report = await isolationReport();
    io.stdout.write(values.json ? jsonText(report) : formatIsolationReport(report));
    return report.osSandbox.ok ? EXIT_CODES.ok : EXIT_CODES.failed;
  },
});
