import type { ExecutorFactory } from "@atrium/spec";
import { MicroVmExecutor, type MicroVmExecutorOptions, microVmCapabilities } from "./micro-vm-executor.js";

/**
 * Makes micro-VM executors with these options: each boots its own machine (stopped by its
 * `close`), unless `options.machine` is given, in which case every executor gets a fresh
 * interpreter in that one machine.
 */
export function microVmExecutorFactory(options: MicroVmExecutorOptions = {}): ExecutorFactory {
  return {
    capabilities: microVmCapabilities(options.machine?.config.network ?? options.config?.network),
    create: () => MicroVmExecutor.create(options),
  };
}
