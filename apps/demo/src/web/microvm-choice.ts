import { existsSync } from "node:fs";
import { type DoctorReport, doctor, sharedMachineExecutorFactory } from "@atrium/microvm";
import { rethrowIfFatal } from "@atrium/spec";
import type { ExecutorChoice, UnavailableExecutor } from "./executor-choice.js";

export const MICROVM_ID = "microvm";
export const MICROVM_LABEL = "Python in a micro-VM (QEMU)";
/** The guest's Python is a copy of the host's Debian python3 (`@atrium/microvm`'s Python image). */
const HOST_PYTHON = "/usr/bin/python3";

export interface MicroVmChoiceOptions {
  /** What this host can run; `@atrium/microvm`'s `doctor()` (cached after its first run, ~10 ms). */
  doctor?: () => Promise<DoctorReport>;
  /** Where the host's Debian python3 is expected (the image copies it). */
  hostPython?: string;
}

/**
 * The micro-VM executor when this host can boot one (QEMU, the kernel, the guest agent's
 * toolchain and Debian's python3 are there), else why not, with the commands that install what
 * is missing. One machine serves every question (booted by `prewarm` or the first question, a
 * fresh interpreter per question); `shutdown` stops its QEMU.
 */
export async function microVmChoice(
  options: MicroVmChoiceOptions = {},
): Promise<ExecutorChoice | UnavailableExecutor> {
  let report: DoctorReport;
  try {
    report = await (options.doctor ?? doctor)();
  } catch (error) {
    rethrowIfFatal(error);
    return unavailable(`the host check failed: ${(error as Error).message}`);
  }
  const missing = report.missing.map((m) => `${m.what} is missing (${m.install})`);
  const hostPython = options.hostPython ?? HOST_PYTHON;
  if (!existsSync(hostPython))
    missing.push(`${hostPython} is missing (sudo apt-get install -y python3-minimal libpython3-stdlib)`);
  if (missing.length > 0) return unavailable(missing.join("; "));
  const factory = sharedMachineExecutorFactory();
  return {
    id: MICROVM_ID,
    label: MICROVM_LABEL,
    factory,
    prewarm: () => factory.prewarm(),
    shutdown: () => factory.close(),
  };
}

function unavailable(reason: string): UnavailableExecutor {
  return { id: MICROVM_ID, label: MICROVM_LABEL, reason: `not available on this host: ${reason}` };
}
