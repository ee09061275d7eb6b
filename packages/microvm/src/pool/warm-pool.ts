import { ClosedError } from "@atrium/spec";
import type { VmConfig, VmConfigInput } from "../config/vm-config.js";
import { Machine } from "../machine/machine.js";
import { type BootPlan, type PrepareOptions, prepareBoot } from "../machine/prepare-boot.js";
import { readSnapshotManifest } from "../machine/snapshot-file.js";

export interface WarmPoolOptions extends PrepareOptions {
  /** Booted machines kept ready (default 1). */
  size?: number;
  /**
   * An idle machine unused this long is stopped, and the pool stays empty until the next
   * `acquire` (default 5 minutes): a pool nobody uses should not keep burning a core under TCG.
   */
  maxIdleMs?: number;
  /**
   * How long after a hand-out the replacement starts booting (default 250 ms). A TCG boot takes
   * a whole core; started at once it would slow the first commands of the machine just handed out.
   */
  refillDelayMs?: number;
}

interface Waiter {
  resolve: (machine: Machine) => void;
  reject: (error: unknown) => void;
}

/**
 * Booted machines handed out at once, refilled in the background. The config is prepared once
 * (kernel, image, initramfs); each machine boots from that plan, one at a time (boots compete
 * for the same cores). A machine handed out is the caller's to stop; `close` stops every
 * machine the pool still holds, idle or booting.
 *
 * A pool made with `fromSnapshot` refills by restoring one snapshot instead of booting: each
 * machine starts where the snapshot was taken (a Python interpreter already loaded, say), with
 * fresh randomness of its own.
 */
export class WarmPool implements AsyncDisposable {
  private readonly idle: { machine: Machine; since: number }[] = [];
  private readonly waiters: Waiter[] = [];
  private booting: Promise<void> | undefined;
  private closed = false;
  /** After an idle timeout: no refills until someone asks again. */
  private dormant = false;
  private lastError: unknown;
  private readonly sweeper: NodeJS.Timeout;
  private refillTimer: NodeJS.Timeout | undefined;
  /** Milliseconds the last boot took from QEMU's start to the agent's first answer. */
  lastBootMs: number | undefined;

  private constructor(
    readonly plan: BootPlan,
    readonly size: number,
    readonly maxIdleMs: number,
    readonly refillDelayMs: number,
    /** The snapshot each machine is restored from, instead of booted (`fromSnapshot`). */
    readonly snapshot?: { file: string; options: PrepareOptions },
  ) {
    this.sweeper = setInterval(() => void this.sweep(), Math.min(1000, maxIdleMs));
    this.sweeper.unref();
  }

  /** Prepares the config and starts filling; resolves before the first machine is up. */
  static async create(config: VmConfigInput | VmConfig, options: WarmPoolOptions = {}): Promise<WarmPool> {
    const size = options.size ?? 1;
    const maxIdleMs = options.maxIdleMs ?? 300_000;
    WarmPool.checkSizes(size, maxIdleMs);
    const plan = await prepareBoot(config, options);
    const pool = new WarmPool(plan, size, maxIdleMs, options.refillDelayMs ?? 250);
    pool.fill();
    return pool;
  }

  /**
   * A pool whose machines are restored from the snapshot `file` (`machine.snapshot`, or a
   * `MicroVmExecutor`'s, whose interpreter an executor made with this pool then takes over).
   */
  static async fromSnapshot(
    file: string,
    options: Omit<WarmPoolOptions, "root" | "kernel"> = {},
  ): Promise<WarmPool> {
    const { size = 1, maxIdleMs = 300_000, refillDelayMs = 250, ...prepare } = options;
    WarmPool.checkSizes(size, maxIdleMs);
    const manifest = await readSnapshotManifest(file);
    const plan = await prepareBoot(manifest.config, { ...prepare, root: manifest.root });
    const pool = new WarmPool(plan, size, maxIdleMs, refillDelayMs, { file, options: prepare });
    pool.fill();
    return pool;
  }

  private static checkSizes(size: number, maxIdleMs: number): void {
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`WarmPool size: a whole number of at least 1, not ${size}`);
    if (!(maxIdleMs > 0))
      throw new RangeError(`WarmPool maxIdleMs: a positive number of milliseconds, not ${maxIdleMs}`);
  }

  /** Machines booted and waiting. */
  get idleCount(): number {
    return this.idle.length;
  }

  /** QEMU pids of the idle machines. */
  qemuPids(): number[] {
    return this.idle.map((entry) => entry.machine.info.qemuPid);
  }

  /** A booted machine: an idle one at once, else the next to finish booting. Yours to stop. */
  acquire(): Promise<Machine> {
    if (this.closed) return Promise.reject(new ClosedError("this warm pool"));
    this.dormant = false;
    const entry = this.idle.shift();
    if (!entry) {
      const waiting = new Promise<Machine>((resolve, reject) => this.waiters.push({ resolve, reject }));
      this.fill();
      return waiting;
    }
    if (!this.refillTimer) {
      this.refillTimer = setTimeout(() => {
        this.refillTimer = undefined;
        this.fill();
      }, this.refillDelayMs);
    }
    return Promise.resolve(entry.machine);
  }

  /** Resolves once `size` machines are idle (or rejects with the boot's error). */
  async whenFull(): Promise<void> {
    this.dormant = false;
    while (this.idle.length < this.size) {
      if (this.closed) throw new ClosedError("this warm pool");
      if (this.lastError) throw this.lastError;
      this.fill();
      await this.booting;
    }
  }

  /** Stops every machine the pool holds, including one still booting; waiting acquires reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    clearTimeout(this.refillTimer);
    for (const waiter of this.waiters.splice(0)) waiter.reject(new ClosedError("this warm pool"));
    const stopping = this.idle.splice(0).map((entry) => entry.machine.stop());
    await Promise.all([...stopping, this.booting]);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private fill(): void {
    if (this.booting || this.closed) return;
    const wanted = () =>
      !this.closed && (this.waiters.length > 0 || (!this.dormant && this.idle.length < this.size));
    if (!wanted()) return;
    this.booting = (async () => {
      while (wanted()) {
        let machine: Machine;
        try {
          const started = performance.now();
          machine = this.snapshot
            ? await Machine.restore(this.snapshot.file, this.snapshot.options)
            : await Machine.boot(this.plan);
          // The first command of a fresh guest pages in the shell and the agent's exec path;
          // paid here, in the background, not by whoever acquires the machine.
          await machine.exec(["true"]);
          this.lastBootMs = performance.now() - started;
          this.lastError = undefined;
        } catch (error) {
          // Not rethrown here (no one would catch it in the background): fatal or not, the
          // error goes to whoever waits, who rethrows it; the next acquire tries again.
          this.lastError = error;
          for (const waiter of this.waiters.splice(0)) waiter.reject(error);
          return;
        }
        if (this.closed) {
          await machine.stop();
          return;
        }
        const waiter = this.waiters.shift();
        if (waiter) waiter.resolve(machine);
        else this.idle.push({ machine, since: Date.now() });
      }
    })().finally(() => {
      this.booting = undefined;
    });
  }

  private async sweep(): Promise<void> {
    const now = Date.now();
    const stale = this.idle.filter((entry) => now - entry.since >= this.maxIdleMs);
    if (stale.length === 0) return;
    this.dormant = true;
    for (const entry of stale) this.idle.splice(this.idle.indexOf(entry), 1);
    await Promise.all(stale.map((entry) => entry.machine.stop()));
  }
}
