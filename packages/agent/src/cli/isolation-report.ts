import { type OsSandboxReport, probeOsSandbox } from "@atrium/kit";

/** What `atrium-agent doctor` reports: which sandbox isolations this host can run. */
export interface IsolationReport {
  /** QuickJS in a worker thread of this process: needs nothing from the host. */
  worker: { ok: true };
  /** The OS sandbox: Python's default, QuickJS's `isolation: "process"`. */
  osSandbox: OsSandboxReport;
}

export async function isolationReport(): Promise<IsolationReport> {
  return { worker: { ok: true }, osSandbox: await probeOsSandbox() };
}

export function formatIsolationReport(report: IsolationReport): string {
  const sandbox = report.osSandbox.ok
    ? `available (a sandbox started and answered in ${Math.round(report.osSandbox.startMs)} ms)`
    : `NOT available: ${report.osSandbox.reason}`;
  return [
    'QuickJS, isolation "worker" (the default): available',
    `OS sandbox (Python's default; QuickJS with isolation "process"): ${sandbox}`,
    "",
  ].join("\n");
}
