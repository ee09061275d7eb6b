import { availableParallelism, totalmem } from "node:os";
import { ConfigError, LimitError } from "@atrium/spec";
import type { VmConfig } from "../config/vm-config.js";
import type { MicrovmLimits } from "../limits.js";

/**
 * Refuses a machine this host cannot give what it asks for: more vCPUs than the host has CPUs
 * (each is a host thread; under TCG a busy one takes a whole core, so 64 on 2 cores starves the
 * host), or more memory than `maxMachineMemoryBytes` or than the host has. Checked at every boot,
 * a pack's too: its config was written on another host.
 */
export function checkHostCapacity(config: VmConfig, limits: Readonly<MicrovmLimits>): void {
  const cores = availableParallelism();
  if (config.cpus > cores) {
    throw new ConfigError(
      `cpus: ${config.cpus} is more than this host's ${cores} CPU${cores === 1 ? "" : "s"}; give at most ${cores}`,
    );
  }
  const memoryBytes = config.memory * 1024 * 1024;
  const hostBytes = totalmem();
  if (memoryBytes > limits.maxMachineMemoryBytes) {
    throw new LimitError(
      "maxMachineMemoryBytes",
      `memory: ${config.memory} MiB is more than maxMachineMemoryBytes (${limits.maxMachineMemoryBytes / 1024 / 1024} MiB); give less, or raise the limit`,
    );
  }
  if (memoryBytes > hostBytes) {
    throw new ConfigError(
      `memory: ${config.memory} MiB is more than this host's ${Math.floor(hostBytes / 1024 / 1024)} MiB; give less`,
    );
  }
}
