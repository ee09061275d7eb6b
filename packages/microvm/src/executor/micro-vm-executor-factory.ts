import { ClosedError, type ExecutorFactory } from "@atrium/spec";
import type { Machine } from "../machine/machine.js";
import {
  bootPythonMachine,
  MicroVmExecutor,
  type MicroVmExecutorOptions,
  microVmCapabilities,
} from "./micro-vm-executor.js";

/**
 * Makes micro-VM executors with these options: each boots its own machine (or takes one from
 * `options.pool`) and stops it on `close`, unless `options.machine` is given, in which case every
 * executor gets a fresh interpreter in that one machine.
 */
export function microVmExecutorFactory(options: MicroVmExecutorOptions = {}): ExecutorFactory {
  return {
    capabilities: microVmCapabilities(options.machine?.config.network ?? options.config?.network),
    create: () => MicroVmExecutor.create(options),
    restore: (path, tools) =>
      MicroVmExecutor.restore(path, {
        ...(options.machineOptions ? { machineOptions: options.machineOptions } : {}),
        tools,
      }),
  };
}

/** An `ExecutorFactory` over one machine it boots itself; see `sharedMachineExecutorFactory`. */
export interface SharedMachineExecutorFactory extends ExecutorFactory {
  /** Boots the machine now (an app does it at start, so the first question does not wait). */
  prewarm(): Promise<void>;
  /** Stops the machine; executors made from it stop working, `create` then rejects. Idempotent. */
  close(): Promise<void>;
}

/**
 * Executors that share one machine, booted on first use (a boot costs seconds under TCG; a fresh
 * interpreter in a booted guest well under one): each `create` starts a new interpreter there,
 * and its `close` ends only that interpreter. If the machine dies, the next `create` boots
 * another. For an app that answers one question at a time (the demo); agents that must not see
 * each other's files should use `microVmExecutorFactory`, a machine each.
 */
export function sharedMachineExecutorFactory(
  options: Omit<MicroVmExecutorOptions, "machine" | "pool"> = {},
): SharedMachineExecutorFactory {
  let machine: Promise<Machine> | undefined;
  let closed = false;
  const boot = () => {
    if (closed) return Promise.reject(new ClosedError("this micro-VM executor factory"));
    if (!machine) {
      machine = bootPythonMachine(options.config, options.machineOptions);
      // A failed boot is not cached: the next call tries again.
      machine.catch(() => {
        machine = undefined;
      });
    }
    return machine;
  };
  return {
    capabilities: microVmCapabilities(options.config?.network),
    async create() {
      let shared = await boot();
      try {
        return await MicroVmExecutor.create({ ...options, machine: shared });
      } catch (error) {
        if (closed) throw error;
        // The machine died under us: boot another once.
        await shared.kill();
        machine = undefined;
        shared = await boot();
        return MicroVmExecutor.create({ ...options, machine: shared });
      }
    },
    async prewarm() {
      await boot();
    },
    async close() {
      closed = true;
      const booting = machine;
      machine = undefined;
      await (await booting?.catch(() => undefined))?.stop();
    },
  };
}
