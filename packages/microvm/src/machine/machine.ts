import type { ChildProcess } from "node:child_process";
import { closeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AbortError, ClosedError, ConfigError, LimitError } from "@atrium/spec";
import { ConsoleRing } from "../boot/console-ring.js";
import { type Accelerator, qemuArgs } from "../boot/qemu-args.js";
import type { VmConfig, VmConfigInput } from "../config/vm-config.js";
import {
  GuestFailureError,
  GuestFileError,
  RequestTooLargeError,
  SnapshotFormatError,
  SnapshotRefusedError,
} from "../errors.js";
import {
  DATA_CHUNK_BYTES,
  encodeCheckedHostFrame,
  FrameTooLargeError,
  MAX_FRAME_BYTES,
} from "../guest-agent/protocol.js";
import type { RootFilesystem } from "../image/rootfs.js";
import type { MicrovmLimits } from "../limits.js";
import { AgentChannel } from "./agent-channel.js";
import { openBootFiles } from "./boot-files.js";
import { createMachineCgroup } from "./cgroup-limits.js";
import { convertDiskToQcow2, prepareOverlay } from "./disk-overlay.js";
import { sendResumed } from "./fresh-identity.js";
import { guestRamPath, loadGuestRam } from "./guest-ram.js";
import { loadMigrationStream, openStreamAt } from "./migration-stream.js";
import { type BootPlan, type GuestVolumeMount, type PrepareOptions, prepareBoot } from "./prepare-boot.js";
import { countQemuProcesses, type QemuChild, spawnQemu } from "./qemu-process.js";
import { type QemuUser, qemuUser } from "./qemu-user.js";
import { QmpClient } from "./qmp-client.js";
import { makeRunDir } from "./run-dir.js";
import { readSnapshotManifest, type SnapshotManifest } from "./snapshot-file.js";
import { directoryBytes } from "./volume-usage.js";
import { type SnapshotDescription, writeSnapshot } from "./write-snapshot.js";

/** Options of `Machine.create`: what `prepareBoot` takes. */
export type MachineOptions = PrepareOptions;

export interface ExecOptions {
  /** Added to (and overriding) the image's and the config's environment. */
  env?: Record<string, string>;
  cwd?: string;
  stdin?: string | Uint8Array;
  /**
   * The guest kills everything the command started (its cgroup and process group) when it runs
   * longer; the exit code is then 124.
   */
  timeoutMs?: number;
  /**
   * Each chunk of output as it comes. A callback that returns a promise (a consumer whose
   * buffer is full: wait for its `drain`) holds the agent channel until it settles, so a command
   * that prints faster than its consumer reads is slowed down instead of buffered on the host.
   */
  onStdout?: (chunk: Uint8Array) => unknown;
  onStderr?: (chunk: Uint8Array) => unknown;
  /**
   * false: the result's stdout and stderr stay empty (`truncated` says output was left out), for
   * a caller that streams everything through the callbacks and has no use for a copy.
   */
  keepOutput?: boolean;
  /** Aborting kills the command and all it started (SIGKILL); `exec` rejects with AbortError. */
  signal?: AbortSignal;
  /**
   * For a long-lived command spoken to over its stdin (a REPL): called once the command is sent,
   * with a handle that streams stdin and signals the command's process group. Its stdin stays
   * open until `closeStdin` (so `stdin` must not be given too).
   */
  control?: (handle: ExecControl) => void;
}

/** Streams stdin to, and signals, one running command (see `ExecOptions.control`). */
export interface ExecControl {
  write(data: string | Uint8Array): void;
  closeStdin(): void;
  /** Sends a signal (a number, e.g. 2 for SIGINT) to the command's process group. */
  kill(signal: number): void;
}

/** Options of `readFile` and `writeFile`. */
export interface FileTransferOptions {
  /** The host gives up on the transfer after this long (default `fileTransferTimeoutMs`). */
  timeoutMs?: number;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The guest killed the command at its timeout (exitCode is 124). */
  timedOut: boolean;
  /** The signal that ended the command, if one did (exitCode is then 128 + signal). */
  signal?: number;
  /** Output past `maxExecOutputBytes` was left out of stdout/stderr (callbacks saw it all). */
  truncated: boolean;
}

export interface MachineInfo {
  accelerator: Accelerator;
  acceleratorReason: string;
  qemuPid: number;
  /** The host user QEMU runs as (never 0: a root host drops it to an unprivileged one). */
  qemuUid: number;
  /**
   * The cgroup directories capping QEMU's memory, tasks and CPU time; empty when the host does not
   * let this process make cgroups (not root, cgroupfs read-only), and the machine runs uncapped.
   */
  cgroup: string[];
  imageDigest: string;
  root: "memory" | "disk";
  /**
   * Milliseconds from `create` to the agent's ready frame, and the part of it QEMU was running
   * (for a restored machine: to the guest running again with fresh entropy).
   */
  timings: { prepareMs: number; bootMs: number };
  /** Set when the machine was restored (or forked) from a snapshot rather than booted. */
  restoredFrom?: string;
}

export interface SnapshotOptions {
  /** JSON kept in the snapshot and given back by `Machine.restore` (`machine.snapshotNote`). */
  note?: unknown;
  /** Leave the machine stopped for good after the snapshot (it is killed), instead of running on. */
  stop?: boolean;
}

export interface SnapshotInfo {
  path: string;
  /** Bytes of QEMU's state (memory, CPUs, devices) and of the disk overlay (0 with a memory root). */
  stateBytes: number;
  diskBytes: number;
  /** Milliseconds the guest was paused for it. */
  pausedMs: number;
}

/** Options of `Machine.restore`: where the image and kernel are cached, limits, progress. */
export type RestoreOptions = Omit<PrepareOptions, "root" | "kernel"> & {
  /** Restore with this plan (a pack's files) instead of preparing one from the snapshot's config. */
  plan?: BootPlan;
};

/** How a boot resumes a snapshot instead of starting the kernel. */
interface Resume {
  file: string;
  manifest: SnapshotManifest;
}

const encoder = new TextEncoder();
/** QEMU's own memory on top of the guest's: TCG's translation cache, device state. */
const QEMU_OVERHEAD_MIB = 1024;
/** QEMU's threads (vCPUs, I/O workers) and an allow-list's relay processes (node, ~10 threads each). */
const QEMU_MAX_TASKS = 512;
/** QEMUs this process started for machines and that have not exited (see maxRunningMachines). */
let runningMachines = 0;

/**
 * One running micro-VM: QEMU booted into an image's root filesystem, with the guest agent
 * answering over virtio-serial. The root disk is the image's cached ext4 behind a throwaway
 * overlay, so nothing a command writes reaches the cache. No network device unless the config
 * turns the network on.
 */
export class Machine implements AsyncDisposable {
  private closed = false;
  private exited: Promise<void>;
  private failure: GuestFailureError | LimitError | undefined;
  private volumeWatch: NodeJS.Timeout | undefined;
  private qmp: QmpClient | undefined;
  private snapshotting = false;
  /** The disk root's qcow2 overlay, when it has one (not a named machine booted from its disk). */
  private diskOverlay: { path: string; backing: boolean } | undefined;
  /** Ids of commands running in the guest: a snapshot records them so a restore can attach. */
  private readonly runningExecs = new Set<number>();

  private constructor(
    private readonly qemu: ChildProcess,
    private readonly channel: AgentChannel,
    private readonly consoleRing: ConsoleRing,
    private readonly runDir: string,
    readonly config: VmConfig,
    private readonly rootfs: RootFilesystem,
    private readonly limits: Readonly<MicrovmLimits>,
    readonly info: MachineInfo,
    private readonly plan: BootPlan,
    private readonly qmpSocketPath: string,
    private readonly qemuUserInfo: QemuUser | undefined,
    /** What `snapshot({ note })` kept, on a restored machine. */
    readonly snapshotNote?: unknown,
  ) {
    // "close", not "exit": by then QEMU's stdout is drained, so a panic message is in the ring.
    this.exited = new Promise((resolve) => {
      qemu.once("close", (code, signal) => {
        if (!this.closed) this.failure ??= this.describeExit(code, signal);
        clearInterval(this.volumeWatch);
        resolve();
      });
    });
  }

  /** Prepares (kernel, agent, image: each cached) and boots a machine; resolves once the agent is ready. */
  static async create(config: VmConfigInput | VmConfig, options: MachineOptions = {}): Promise<Machine> {
    const started = performance.now();
    const plan = await prepareBoot(config, options);
    return Machine.boot(plan, { onProgress: options.onProgress, startedAt: started });
  }

  /**
   * Boots a machine from a plan `prepareBoot` made. A plan can boot any number of machines (a
   * warm pool prepares once and boots in the background).
   */
  static async boot(
    plan: BootPlan,
    options: { onProgress?: (stage: string) => void; startedAt?: number } = {},
  ): Promise<Machine> {
    return Machine.start(plan, options);
  }

  /**
   * Resumes a machine from a snapshot file (`machine.snapshot`): same image, memory, devices and
   * network policy, its memory and disk as they were, running commands still running. The guest
   * gets the host's clock and fresh entropy before anything else runs, so two restores of one
   * snapshot draw different random bytes. Another process than the one that took it may restore
   * it: the agent channel is reconnected before the guest runs.
   */
  static async restore(file: string, options: RestoreOptions = {}): Promise<Machine> {
    const started = performance.now();
    const manifest = await readSnapshotManifest(file);
    const plan = options.plan ?? (await prepareBoot(manifest.config, { ...options, root: manifest.root }));
    return Machine.restorePlan(plan, file, manifest, { onProgress: options.onProgress, startedAt: started });
  }

  /** `restore` with a plan already prepared (a fork prepares once for all its clones). */
  private static restorePlan(
    plan: BootPlan,
    file: string,
    manifest: SnapshotManifest,
    options: { onProgress?: (stage: string) => void; startedAt?: number },
  ): Promise<Machine> {
    const differs = (what: string, theirs: string, ours: string) =>
      new SnapshotFormatError(
        `${file} was taken with ${what} ${theirs}, and this host would restore it with ${ours}; restore it where it was taken, or boot afresh`,
      );
    if (plan.rootfs.digest !== manifest.imageDigest)
      throw differs("image", manifest.imageDigest, plan.rootfs.digest);
    if (plan.kernel.release !== manifest.kernelRelease)
      throw differs("kernel", manifest.kernelRelease, plan.kernel.release);
    if (plan.accelerator.accelerator !== manifest.accelerator)
      throw differs("accelerator", manifest.accelerator, plan.accelerator.accelerator);
    return Machine.start(plan, options, { file, manifest });
  }

  private static async start(
    plan: BootPlan,
    options: { onProgress?: (stage: string) => void; startedAt?: number },
    resume?: Resume,
  ): Promise<Machine> {
    const started = options.startedAt ?? performance.now();
    const { config: vm, limits, kernel, rootfs, initramfsPath, volumes } = plan;
    const choice = plan.accelerator;
    const qemuBinary = plan.qemu;
    const rootKind = plan.root;
    const progress = options.onProgress ?? (() => {});
    progress("boot");
    if (runningMachines >= limits.maxRunningMachines) {
      throw new LimitError(
        "maxRunningMachines",
        `this process already runs ${runningMachines} machine${runningMachines === 1 ? "" : "s"}, as many as maxRunningMachines (${limits.maxRunningMachines}) allows; stop one first, or raise the limit`,
      );
    }
    const user = qemuUser();
    const qemuUid = user?.uid ?? (process.getuid?.() as number);
    const onHost = countQemuProcesses(qemuUid);
    if (onHost >= limits.maxHostMachines) {
      throw new LimitError(
        "maxHostMachines",
        `this host already runs ${onHost} machine${onHost === 1 ? "" : "s"} as uid ${qemuUid}, as many as maxHostMachines (${limits.maxHostMachines}) allows; stop one first, or raise the limit`,
      );
    }
    // Counted from here, so boots started together cannot all pass the check; released when
    // QEMU exits or the boot fails before it starts.
    runningMachines += 1;
    let counted = true;
    const release = () => {
      if (counted) runningMachines -= 1;
      counted = false;
    };
    // QEMU's own directory (run-dir.ts): an unprivileged QEMU writes there and nowhere else.
    let runDir: string;
    try {
      runDir = await makeRunDir(user);
    } catch (error) {
      release();
      throw error;
    }
    const agentSocketPath = join(runDir, "agent.sock");
    const qmpSocketPath = join(runDir, "qmp.sock");
    let bootFiles: Awaited<ReturnType<typeof openBootFiles>>;
    let diskOverlay: { path: string; backing: boolean } | undefined;
    try {
      diskOverlay = await prepareOverlay(
        { root: rootKind, baseDiskPath: rootfs.diskPath, persistent: plan.persistentDisk === true },
        runDir,
        user,
        resume?.manifest.disk
          ? { file: resume.file, section: resume.manifest.disk, base: resume.manifest.diskBase ?? "image" }
          : undefined,
      );
      bootFiles = await openBootFiles({
        kernel: kernel.vmlinuxPath,
        initramfs: initramfsPath,
        ...(rootKind === "disk" && diskOverlay?.backing !== false ? { disk: rootfs.diskPath } : {}),
        diskWritable: plan.persistentDisk === true && !diskOverlay,
        user,
      });
    } catch (error) {
      release();
      await rm(runDir, { recursive: true, force: true });
      throw error;
    }
    const args = qemuArgs({
      accelerator: choice.accelerator,
      kernelPath: bootFiles.kernelPath,
      initramfsPath: bootFiles.initramfsPath,
      cpus: vm.cpus,
      memoryMiB: vm.memory,
      agentSocketPath,
      ...(bootFiles.diskFds ? { diskFds: bootFiles.diskFds, diskSnapshot: !plan.persistentDisk } : {}),
      ...(diskOverlay ? { diskOverlay } : {}),
      qmpSocketPath,
      incoming: resume !== undefined,
      sandbox: { allowSpawn: plan.guestForwards !== undefined },
      volumes,
      network: vm.network.enabled
        ? {
            hostForwards: vm.ports.map((port) => ({ hostPort: port.host, guestPort: port.guest })),
            ...(plan.guestForwards ? { guestForwards: plan.guestForwards } : {}),
          }
        : undefined,
      tscKhz: plan.tscKhz,
    });
    const bootStarted = performance.now();
    const cgroup = await createMachineCgroup({
      memoryBytes: (vm.memory + QEMU_OVERHEAD_MIB) * 1024 * 1024,
      pids: QEMU_MAX_TASKS,
      cpus: vm.cpus,
    });
    let spawned: QemuChild;
    let stateFd: number | undefined;
    try {
      if (resume) stateFd = openStreamAt(resume.file, resume.manifest.state.offset);
      spawned = spawnQemu(qemuBinary.path, args, {
        fds: stateFd === undefined ? bootFiles.fds : [...bootFiles.fds, stateFd],
        user,
        noNetwork: !vm.network.enabled,
        env: { TMPDIR: runDir },
        writableDirs: [
          runDir,
          ...volumes.filter((volume) => !volume.readonly).map((volume) => volume.hostPath),
        ],
        ...(cgroup ? { cgroupDirs: cgroup.dirs } : {}),
      });
    } catch (error) {
      await cgroup?.remove();
      release();
      await rm(runDir, { recursive: true, force: true });
      throw error;
    } finally {
      await bootFiles.close();
      if (stateFd !== undefined) closeSync(stateFd);
    }
    const qemu = spawned.process;
    const ended = () => {
      release();
      void cgroup?.remove();
    };
    qemu.once("exit", ended);
    qemu.once("error", ended); // could not start: no "exit" follows
    const consoleRing = new ConsoleRing(limits.maxConsoleBytes);
    qemu.stdout?.on("data", (chunk: Buffer) => consoleRing.push(chunk));
    qemu.stderr?.on("data", (chunk: Buffer) => consoleRing.push(chunk));
    const alive = () => qemu.exitCode === null && qemu.signalCode === null;
    const qemuExit = new Promise<never>((_, reject) => {
      qemu.once("exit", (code, signal) =>
        reject(
          new GuestFailureError(
            `QEMU exited during boot (${signal ?? `exit code ${code}`})${panicHint(consoleRing)}`,
            consoleRing.tail(),
          ),
        ),
      );
      qemu.once("error", (error) =>
        reject(new GuestFailureError(`QEMU could not start: ${error.message}`, "")),
      );
    });
    qemuExit.catch(() => {});
    let channel: AgentChannel | undefined;
    let qmp: QmpClient | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new GuestFailureError(
                `the guest agent was not ready within ${limits.bootTimeoutMs} ms (bootTimeoutMs)`,
                consoleRing.tail(),
              ),
            ),
          limits.bootTimeoutMs,
        );
      });
      // A restore connects QMP alongside the agent channel (both sockets appear at QEMU's start).
      const qmpConnecting = resume
        ? QmpClient.connect(qmpSocketPath, alive, limits.bootTimeoutMs)
        : undefined;
      qmpConnecting?.then(
        (client) => {
          qmp = client;
        },
        () => {},
      );
      channel = await Promise.race([
        AgentChannel.connect(agentSocketPath, alive, limits.bootTimeoutMs),
        qemuExit,
        timeout,
      ]);
      if (resume && qmpConnecting) {
        // The channel is connected before the guest runs: a guest agent that found its port's
        // host end closed would take it for the host being gone and power off.
        channel.continueIdsFrom(resume.manifest.channel.nextId);
        const partial = resume.manifest.channel.partialFrame;
        if (partial) channel.resumeFrame(Buffer.from(partial, "base64"));
        const connected = await Promise.race([qmpConnecting, qemuExit, timeout]);
        const ram = resume.manifest.ram;
        if (ram) {
          const ramPath = guestRamPath(await spawned.qemuPid());
          if (!ramPath)
            throw new SnapshotFormatError(
              `${resume.file} holds a TCG guest's RAM, and this QEMU has no memfd RAM to take it (KVM?); restore it where it was taken`,
            );
          loadGuestRam(resume.file, ram, ramPath);
        }
        await Promise.race([
          // QEMU's fds start at 3, the state's comes after the boot files'.
          loadMigrationStream(
            connected,
            3 + bootFiles.fds.length,
            alive,
            limits.snapshotTimeoutMs,
            ram !== undefined,
          ),
          qemuExit,
          timeout,
        ]);
        await Promise.race([sendResumed(channel, limits.bootTimeoutMs), qemuExit, timeout]);
      } else await Promise.race([channel.whenReady, qemuExit, timeout]);
    } catch (error) {
      qmp?.close();
      channel?.close();
      qemu.kill("SIGKILL");
      await rm(runDir, { recursive: true, force: true });
      throw error;
    } finally {
      clearTimeout(timer);
    }
    const bootMs = performance.now() - bootStarted;
    const machine = new Machine(
      qemu,
      channel,
      consoleRing,
      runDir,
      vm,
      rootfs,
      limits,
      {
        accelerator: choice.accelerator,
        acceleratorReason: choice.reason,
        qemuPid: await spawned.qemuPid(),
        qemuUid,
        cgroup: cgroup?.dirs ?? [],
        imageDigest: rootfs.digest,
        root: rootKind,
        timings: { prepareMs: bootStarted - started, bootMs },
        ...(resume ? { restoredFrom: resume.file } : {}),
      },
      plan,
      qmpSocketPath,
      user,
      resume?.manifest.note,
    );
    machine.qmp = qmp as QmpClient | undefined;
    machine.diskOverlay = diskOverlay;
    if (resume) {
      for (const id of resume.manifest.channel.runningExecs) machine.runningExecs.add(id);
      return machine;
    }
    machine.watchVolumes(volumes.filter((volume) => !volume.readonly));
    for (const command of vm.init) {
      const result = await machine.exec(command);
      if (result.exitCode !== 0) {
        await machine.stop();
        throw new ConfigError(
          `init command ${JSON.stringify(command)} failed with exit code ${result.exitCode}: ${result.stderr.trim()}`,
        );
      }
    }
    return machine;
  }

  /**
   * Holds read-write volumes to maxVolumeBytes: 9p has no quota, so the host measures each one
   * every volumeCheckIntervalMs and kills the machine that went past it. What the guest can
   * write between two checks is the overrun bound (README, "Volumes").
   */
  private watchVolumes(volumes: readonly GuestVolumeMount[]): void {
    if (volumes.length === 0) return;
    let measuring = false;
    this.volumeWatch = setInterval(async () => {
      if (measuring || this.closed || this.failure) return;
      measuring = true;
      try {
        for (const volume of volumes) {
          const bytes = await directoryBytes(volume.hostPath);
          if (bytes > this.limits.maxVolumeBytes && !this.closed && !this.failure) {
            this.failure = new LimitError(
              "maxVolumeBytes",
              `volume ${volume.guestPath} (${volume.hostPath} on the host) holds ${bytes} bytes, past maxVolumeBytes (${this.limits.maxVolumeBytes}); the machine was killed`,
            );
            this.killQemu();
            return;
          }
        }
      } finally {
        measuring = false;
      }
    }, this.limits.volumeCheckIntervalMs);
    this.volumeWatch.unref();
  }

  /** The guest console's last lines (boot messages, panics, the init's complaints). */
  consoleTail(lines = 25): string {
    return this.consoleRing.tail(lines);
  }

  /**
   * Runs a command in the guest: a string goes to `/bin/sh -c`, an array is the argv. Resolves
   * with its exit code and output, also for non-zero exits and timeouts (124); rejects when the
   * command could not start (no such program, bad cwd), when aborted, or when the machine died.
   */
  exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    const unusable = this.unusable();
    if (unusable) return Promise.reject(unusable);
    const argv = typeof command === "string" ? ["/bin/sh", "-c", command] : [...command];
    if (argv.length === 0)
      return Promise.reject(new ConfigError("exec: the command is empty; give a string or a non-empty argv"));
    if (options.signal?.aborted) return Promise.reject(new AbortError());
    if (options.control && options.stdin !== undefined)
      return Promise.reject(new ConfigError("exec: give either stdin or control, not both"));
    const env = new Map<string, string>();
    for (const entry of this.rootfs.config.env) {
      const eq = entry.indexOf("=");
      if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
    }
    if (!env.has("PATH")) env.set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    for (const [key, value] of Object.entries(this.config.env)) env.set(key, value);
    for (const [key, value] of Object.entries(options.env ?? {})) env.set(key, value);
    const cwd = options.cwd ?? this.config.workdir ?? this.rootfs.config.workdir;
    const timeoutMs = options.timeoutMs ?? 0;
    const id = this.channel.allocateId();
    const stdin = typeof options.stdin === "string" ? encoder.encode(options.stdin) : options.stdin;
    const request = {
      type: "exec" as const,
      id,
      argv,
      env: [...env].map(([k, v]) => `${k}=${v}`),
      cwd,
      timeoutMs,
      hasStdin: stdin !== undefined || options.control !== undefined,
    };
    try {
      // Checked before anything is sent: a frame over the agent's limit would power the guest off.
      encodeCheckedHostFrame(request);
    } catch (error) {
      if (!(error instanceof FrameTooLargeError)) throw error;
      return Promise.reject(
        new RequestTooLargeError(
          `exec: the command's argv, environment and cwd take ${error.bytes} bytes, over the guest agent's limit of ${MAX_FRAME_BYTES}; pass large data through stdin or writeFile`,
        ),
      );
    }
    return this.follow(id, options, timeoutMs, request, stdin);
  }

  /**
   * Follows a command already running in the guest, on a machine restored from a snapshot taken
   * while it ran (`restoredExecs` lists them): its output from the restore on, its exit, and with
   * `control` its stdin and signals. What it printed before the snapshot went to the process that
   * took it. The use: a harness that was waiting on a tool call's answer when the snapshot was
   * taken gets that answer from another process.
   */
  attach(
    id: number,
    options: Omit<ExecOptions, "stdin" | "env" | "cwd" | "timeoutMs"> = {},
  ): Promise<ExecResult> {
    const unusable = this.unusable();
    if (unusable) return Promise.reject(unusable);
    if (!this.runningExecs.has(id) || this.channel.isListening(id))
      return Promise.reject(
        new ConfigError(
          `attach: no command with id ${id} is waiting to be attached (running at the snapshot: ${[...this.runningExecs].join(", ") || "none"})`,
        ),
      );
    return this.follow(id, options, 0, undefined, undefined);
  }

  /** Ids of the commands that were running when this machine's snapshot was taken, not yet ended. */
  get restoredExecs(): number[] {
    return [...this.runningExecs].filter((id) => !this.channel.isListening(id));
  }

  /** The id the next exec gets (see `attach`): a caller that must find its command after a restore records it. */
  get nextExecId(): number {
    return this.channel.nextRequestId;
  }

  private follow(
    id: number,
    options: ExecOptions,
    timeoutMs: number,
    request: Parameters<AgentChannel["send"]>[0] | undefined,
    stdin: Uint8Array | undefined,
  ): Promise<ExecResult> {
    if (options.signal?.aborted) return Promise.reject(new AbortError());
    return new Promise<ExecResult>((resolve, reject) => {
      const kept = options.keepOutput === false ? 0 : this.limits.maxExecOutputBytes;
      const out = new OutputBuffer(kept);
      const err = new OutputBuffer(kept);
      let graceTimer: NodeJS.Timeout | undefined;
      let holding = 0;
      let lastFrameAt = performance.now();
      const finish = (action: () => void) => {
        this.runningExecs.delete(id);
        this.channel.release(id);
        unsubscribe();
        options.signal?.removeEventListener("abort", onAbort);
        clearTimeout(graceTimer);
        action();
      };
      const onAbort = () => {
        try {
          this.channel.send({ type: "signal", id, signal: 9 });
        } catch {
          // the channel is gone; the broken listener reports it
        }
        finish(() => reject(new AbortError("exec was aborted; the command was killed")));
      };
      const unsubscribe = this.channel.onBroken(
        () => void this.settled().then(() => finish(() => reject(this.deathError()))),
      );
      const deliver = (callback: ((chunk: Uint8Array) => unknown) | undefined, chunk: Uint8Array) => {
        const pending = callback?.(chunk);
        if (pending instanceof Promise) {
          const release = this.channel.hold();
          holding++;
          const done = () => {
            holding--;
            lastFrameAt = performance.now();
            release();
          };
          pending.then(done, done);
        }
      };
      this.channel.listen(id, (frame) => {
        lastFrameAt = performance.now();
        if (frame.type === "stdout") {
          out.push(frame.data);
          deliver(options.onStdout, frame.data);
        } else if (frame.type === "stderr") {
          err.push(frame.data);
          deliver(options.onStderr, frame.data);
        } else if (frame.type === "exit") {
          finish(() =>
            resolve({
              exitCode: frame.code,
              stdout: out.text(),
              stderr: err.text(),
              timedOut: frame.timedOut,
              ...(frame.signal ? { signal: frame.signal } : {}),
              truncated: out.truncated || err.truncated,
            }),
          );
        } else if (frame.type === "error") {
          finish(() => reject(new GuestFileError(frame.message, frame.errno)));
        }
      });
      options.signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs > 0) {
        // The guest enforces the timeout; this only catches a guest that stopped answering. Output
        // still arriving, or held back by a slow consumer, is an answer: the exit frame waits
        // behind it.
        const onGrace = () => {
          if (holding > 0 || performance.now() - lastFrameAt < this.limits.execGraceMs) {
            graceTimer = setTimeout(onGrace, this.limits.execGraceMs);
            return;
          }
          finish(() =>
            reject(
              new GuestFailureError(
                `the guest did not answer within ${timeoutMs + this.limits.execGraceMs} ms of an exec with timeoutMs ${timeoutMs}`,
                this.consoleRing.tail(),
              ),
            ),
          );
          void this.kill();
        };
        graceTimer = setTimeout(onGrace, timeoutMs + this.limits.execGraceMs);
      }
      this.runningExecs.add(id);
      if (request) this.channel.send(request);
      if (options.control) {
        const send = (frame: Parameters<AgentChannel["send"]>[0]) => {
          if (!this.unusable()) this.channel.send(frame);
        };
        options.control({
          write: (data) => {
            const bytes = typeof data === "string" ? encoder.encode(data) : data;
            for (let offset = 0; offset < bytes.byteLength; offset += DATA_CHUNK_BYTES)
              send({ type: "stdin", id, data: bytes.subarray(offset, offset + DATA_CHUNK_BYTES) });
          },
          closeStdin: () => send({ type: "stdin-close", id }),
          kill: (signal) => send({ type: "signal", id, signal }),
        });
      }
      if (stdin !== undefined) {
        for (let offset = 0; offset < stdin.byteLength; offset += DATA_CHUNK_BYTES) {
          this.channel.send({ type: "stdin", id, data: stdin.subarray(offset, offset + DATA_CHUNK_BYTES) });
        }
        this.channel.send({ type: "stdin-close", id });
      }
    });
  }

  /**
   * Writes a regular file in the guest (created or truncated), streamed in chunks. A FIFO,
   * device or socket at `path` is refused (GuestFileError), and the host gives up after
   * `timeoutMs`.
   */
  writeFile(
    path: string,
    data: string | Uint8Array,
    options: { mode?: number } & FileTransferOptions = {},
  ): Promise<void> {
    const unusable = this.unusable();
    if (unusable) return Promise.reject(unusable);
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    const id = this.channel.allocateId();
    const open = { type: "write-open" as const, id, path, mode: options.mode ?? 0o644 };
    const tooLarge = this.pathTooLarge("writeFile", open);
    if (tooLarge) return Promise.reject(tooLarge);
    return new Promise<void>((resolve, reject) => {
      const unsubscribe = this.channel.onBroken(
        () => void this.settled().then(() => done(() => reject(this.deathError()))),
      );
      const timer = this.transferTimer("writeFile", path, options, (error) => done(() => reject(error)));
      const done = (action: () => void) => {
        this.channel.release(id);
        unsubscribe();
        clearTimeout(timer);
        action();
      };
      this.channel.listen(id, (frame) => {
        if (frame.type === "ok") done(resolve);
        else if (frame.type === "error")
          done(() => reject(new GuestFileError(`writeFile ${frame.message}`, frame.errno)));
      });
      this.channel.send(open);
      for (let offset = 0; offset < bytes.byteLength; offset += DATA_CHUNK_BYTES) {
        this.channel.send({
          type: "write-data",
          id,
          data: bytes.subarray(offset, offset + DATA_CHUNK_BYTES),
        });
      }
      this.channel.send({ type: "write-close", id });
    });
  }

  /**
   * Reads a whole regular file from the guest (at most `maxReadFileBytes`: the agent refuses a
   * larger one). A FIFO, device or socket is refused (GuestFileError), and the host gives up
   * after `timeoutMs`; either way the machine takes the next request.
   */
  readFile(path: string, options: FileTransferOptions = {}): Promise<Uint8Array> {
    const unusable = this.unusable();
    if (unusable) return Promise.reject(unusable);
    const id = this.channel.allocateId();
    const request = { type: "read" as const, id, path, maxBytes: this.limits.maxReadFileBytes };
    const tooLarge = this.pathTooLarge("readFile", request);
    if (tooLarge) return Promise.reject(tooLarge);
    return new Promise<Uint8Array>((resolve, reject) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      const unsubscribe = this.channel.onBroken(
        () => void this.settled().then(() => done(() => reject(this.deathError()))),
      );
      const timer = this.transferTimer("readFile", path, options, (error) => done(() => reject(error)));
      const done = (action: () => void) => {
        this.channel.release(id);
        unsubscribe();
        clearTimeout(timer);
        action();
      };
      this.channel.listen(id, (frame) => {
        if (frame.type === "file-data") {
          size += frame.data.byteLength;
          if (size > this.limits.maxReadFileBytes) {
            done(() =>
              reject(
                new GuestFileError(
                  `readFile ${path}: larger than maxReadFileBytes (${this.limits.maxReadFileBytes})`,
                  27,
                ),
              ),
            );
          } else chunks.push(frame.data);
        } else if (frame.type === "file-end") done(() => resolve(Buffer.concat(chunks)));
        else if (frame.type === "error")
          done(() => reject(new GuestFileError(`readFile ${frame.message}`, frame.errno)));
      });
      this.channel.send(request);
    });
  }

  /**
   * Saves the running machine to `path`: memory, CPUs and devices (QEMU's migration stream) and
   * its disk overlay, so `Machine.restore(path)` resumes it where it was, in this process or
   * another. QEMU copies the memory while the guest runs and stops it for the last dirty pages
   * and the disk; it runs on afterwards (unless `stop`). Commands that are running stay running
   * in the snapshot (see `attach`). Refused with a mounted volume: QEMU
   * will not migrate a machine with a 9p export.
   */
  async snapshot(path: string, options: SnapshotOptions = {}): Promise<SnapshotInfo> {
    const unusable = this.unusable();
    if (unusable) throw unusable;
    this.refuseVolumes("snapshot");
    if (this.snapshotting)
      throw new SnapshotRefusedError(
        "a snapshot of this machine is already being taken; wait for it to finish",
      );
    this.snapshotting = true;
    const timeoutMs = this.limits.snapshotTimeoutMs;
    let started = false;
    try {
      const qmp = await this.qmpClient();
      started = true;
      // Not paused first: QEMU copies the memory while the guest runs and stops it only for the
      // last dirty pages, and a stream taken of a running guest resumes running on restore.
      const written = await writeSnapshot(
        path,
        {
          qmp,
          runDir: this.runDir,
          user: this.qemuUserInfo,
          timeoutMs,
          ramPath: guestRamPath(this.info.qemuPid),
        },
        () => this.describeForSnapshot(options.note),
        async () => {
          // What the guest sent before it stopped is read from the socket on the next turns.
          for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
          return this.snapshotDisk();
        },
      );
      if (options.stop) await this.kill();
      else await qmp.execute("cont", {}, timeoutMs);
      const pausedMs = written.downtimeMs + (performance.now() - written.completedAt);
      return { path, stateBytes: written.stateBytes, diskBytes: written.diskBytes, pausedMs };
    } catch (error) {
      // A failed snapshot must not leave the guest stopped.
      if (started && !this.closed) await this.qmp?.execute("cont", {}, timeoutMs).catch(() => {});
      throw error;
    } finally {
      this.snapshotting = false;
    }
  }

  /**
   * Makes `count` copy-on-write clones of this running machine: one snapshot, restored `count`
   * times, each clone with its own copy of the disk overlay over the image's shared ext4, its own
   * memory, fresh entropy and the same network policy. This machine runs on; the clones are the
   * caller's to stop. Refused with a mounted volume, like `snapshot`.
   */
  async fork(count: number, options: { note?: unknown } = {}): Promise<Machine[]> {
    if (!Number.isInteger(count) || count < 1 || count > this.limits.maxForks)
      throw new ConfigError(
        `fork: count must be a whole number from 1 to maxForks (${this.limits.maxForks}), not ${count}`,
      );
    this.refuseVolumes("fork");
    const dir = await mkdtemp(join(tmpdir(), "atrium-vm-fork-"));
    const file = join(dir, "fork.snapshot");
    try {
      await this.snapshot(file, options);
      const manifest = await readSnapshotManifest(file);
      const clones = await Promise.allSettled(
        Array.from({ length: count }, () => Machine.restorePlan(this.plan, file, manifest, {})),
      );
      const failed = clones.find((clone) => clone.status === "rejected");
      if (failed) {
        await Promise.all(
          clones.map((clone) => (clone.status === "fulfilled" ? clone.value.kill() : undefined)),
        );
        throw failed.reason;
      }
      return clones.map((clone) => (clone as PromiseFulfilledResult<Machine>).value);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The manifest's account of this machine, taken with the guest stopped. */
  private describeForSnapshot(note: unknown): SnapshotDescription {
    const partial = this.channel.partialFrame;
    return {
      config: this.config,
      imageDigest: this.rootfs.digest,
      kernelRelease: this.plan.kernel.release,
      accelerator: this.info.accelerator,
      root: this.info.root,
      channel: {
        nextId: this.channel.nextRequestId,
        runningExecs: [...this.runningExecs],
        ...(partial.byteLength > 0 ? { partialFrame: Buffer.from(partial).toString("base64") } : {}),
      },
      ...(note !== undefined ? { note } : {}),
    };
  }

  /** QEMU will not migrate a machine with a mounted 9p export; say which volume, and what to do. */
  private refuseVolumes(what: string): void {
    const volume = this.plan.volumes[0];
    if (!volume) return;
    throw new SnapshotRefusedError(
      `${what}: this machine has the volume ${volume.hostPath} mounted at ${volume.guestPath} (9p), and QEMU refuses to migrate a machine with a mounted 9p export; boot it without volumes (copy files in with writeFile or atrium-vm cp) to ${what} it`,
    );
  }

  /** The disk as it is now (the guest paused), as a qcow2 file to copy into a snapshot. */
  private async snapshotDisk(): Promise<{ path: string; base: "image" | "none" } | undefined> {
    if (this.info.root !== "disk") return undefined;
    // A restored machine's overlay may be a whole disk of its own (a named machine's snapshot).
    if (this.diskOverlay)
      return { path: this.diskOverlay.path, base: this.diskOverlay.backing ? "image" : "none" };
    // A named machine's own disk, written in place: its allocated clusters, as a qcow2 of its own.
    const path = join(this.runDir, "snapshot-disk.qcow2");
    await rm(path, { force: true });
    await convertDiskToQcow2(this.rootfs.diskPath, path);
    return { path, base: "none" };
  }

  private async qmpClient(): Promise<QmpClient> {
    if (this.qmp) return this.qmp;
    const alive = () => this.qemu.exitCode === null && this.qemu.signalCode === null;
    this.qmp = await QmpClient.connect(this.qmpSocketPath, alive, this.limits.bootTimeoutMs);
    return this.qmp;
  }

  /** Powers the guest off (QEMU is killed if it does not exit within `stopTimeoutMs`). Idempotent. */
  async stop(): Promise<void> {
    if (this.closed) return this.exited;
    this.closed = true;
    try {
      this.channel.send({ type: "power-off", id: this.channel.allocateId() });
    } catch {
      // the guest is already gone
    }
    const timer = setTimeout(() => this.killQemu(), this.limits.stopTimeoutMs);
    await this.exited;
    clearTimeout(timer);
    this.qmp?.close();
    this.channel.close();
    await rm(this.runDir, { recursive: true, force: true });
  }

  /** Kills QEMU at once (no clean shutdown). */
  async kill(): Promise<void> {
    this.closed = true;
    this.killQemu();
    await this.exited;
    this.qmp?.close();
    this.channel.close();
    await rm(this.runDir, { recursive: true, force: true });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  /** A file request whose path alone is over the agent's frame limit, as the error to give. */
  private pathTooLarge(
    what: string,
    request: Parameters<AgentChannel["send"]>[0],
  ): RequestTooLargeError | undefined {
    try {
      encodeCheckedHostFrame(request);
      return undefined;
    } catch (error) {
      if (!(error instanceof FrameTooLargeError)) throw error;
      return new RequestTooLargeError(
        `${what}: the path takes ${error.bytes} bytes, over the guest agent's limit of ${MAX_FRAME_BYTES}`,
      );
    }
  }

  /**
   * The host's bound on one file transfer. Frames the guest still sends for it afterwards are
   * dropped (their id is released), so the channel stays usable.
   */
  private transferTimer(
    what: string,
    path: string,
    options: FileTransferOptions,
    onTimeout: (error: Error) => void,
  ): NodeJS.Timeout {
    const timeoutMs = options.timeoutMs ?? this.limits.fileTransferTimeoutMs;
    return setTimeout(
      () =>
        onTimeout(
          new GuestFileError(
            `${what} ${path}: no answer from the guest within ${timeoutMs} ms (fileTransferTimeoutMs); the transfer was abandoned`,
            110,
          ),
        ),
      timeoutMs,
    );
  }

  /**
   * SIGKILL to QEMU itself, not only to the namespace wrapper this process started: QEMU dies at
   * once and its parent, the wrapper, reaps it and exits (killing the wrapper first would leave
   * QEMU to its parent-death signal and an unreaped moment).
   */
  private killQemu(): void {
    if (this.qemu.exitCode !== null || this.qemu.signalCode !== null) return;
    try {
      process.kill(this.info.qemuPid, "SIGKILL");
      if (this.info.qemuPid === this.qemu.pid) return;
      // The wrapper exits when QEMU does; should it not, its own kill follows.
      setTimeout(() => this.qemu.kill("SIGKILL"), 1000).unref();
    } catch {
      this.qemu.kill("SIGKILL");
    }
  }

  /** Why this machine cannot take work (it died, or was stopped), or undefined when it can. */
  private unusable(): Error | undefined {
    if (this.failure) return this.failure;
    if (this.closed) return new ClosedError("this machine");
    return undefined;
  }

  /** After the channel broke: QEMU is exiting; wait (briefly) so the error can say why. */
  private async settled(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, 3000)))]);
    clearTimeout(timer);
  }

  private deathError(): Error {
    if (this.closed && !this.failure) return new ClosedError("this machine");
    return this.failure ?? new GuestFailureError("the guest agent channel broke", this.consoleRing.tail());
  }

  private describeExit(code: number | null, signal: NodeJS.Signals | null): GuestFailureError {
    return new GuestFailureError(
      `the machine stopped unexpectedly (QEMU ${signal ? `killed by ${signal}` : `exit code ${code}`})${panicHint(this.consoleRing)}`,
      this.consoleRing.tail(),
    );
  }
}

function panicHint(ring: ConsoleRing): string {
  const text = ring.text();
  const panic = /Kernel panic - [^\n]*/.exec(text)?.[0];
  if (panic) return `: the guest kernel panicked (${panic.trim()})`;
  const agent = /atrium-(?:init|agent): [^\n]*/.exec(text)?.[0];
  return agent ? `: ${agent.trim()}` : "";
}

/** Output kept for an exec result: everything up to a byte limit, the rest counted as cut. */
class OutputBuffer {
  private chunks: Uint8Array[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Uint8Array): void {
    const room = this.maxBytes - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const kept = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.chunks.push(kept);
    this.size += kept.byteLength;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
