import {
  boundOutput,
  describeThrown,
  type ExecutorRun,
  limitOptions,
  newExecutorRun,
  SandboxedExecutor,
  SandboxProtocolError,
  type SandboxToolOutcome,
  type ToolCallEvent,
  type VariableEntry,
} from "@atrium/kit";
import {
  AbortError,
  ConfigError,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  EXECUTION_ERROR_KINDS,
  type ExecutionError,
  type ExecutionErrorKind,
  type ExecutionResult,
  type ExecutorCapabilities,
  type ExecutorRunOptions,
  type Tool,
} from "@atrium/spec";
import { defaultCacheDir } from "../cache-dir.js";
import type { VmConfigInput } from "../config/vm-config.js";
import { buildDebianPythonImage } from "../image/debian-python-image.js";
import {
  DEFAULT_MICRO_VM_EXECUTOR_LIMITS,
  type MicroVmExecutorLimits,
  resolveMicroVmExecutorLimits,
} from "../limits.js";
import { Machine, type MachineOptions, type RestoreOptions, type SnapshotInfo } from "../machine/machine.js";
import type { WarmPool } from "../pool/warm-pool.js";
import { GuestRepl, type HarnessMessage, type ToolMessage } from "./guest-repl.js";
import { toolInputFromCall } from "./tool-input.js";

/** Every limit of `MicroVmExecutorLimits` is an option (its default in `DEFAULT_MICRO_VM_EXECUTOR_LIMITS`). */
export interface MicroVmExecutorOptions extends Partial<MicroVmExecutorLimits> {
  /**
   * Run in this machine (its image must have /usr/bin/python3) instead of booting one; `close`
   * then ends only this executor's interpreter and leaves the machine running.
   */
  machine?: Machine;
  /**
   * Take a booted machine from this pool (made with a Python image, e.g. `buildDebianPythonImage`)
   * instead of booting one; the executor owns it and `close` stops it.
   */
  pool?: WarmPool;
  /** The machine to boot when none is given; the image defaults to Debian's python3. */
  config?: Partial<VmConfigInput>;
  machineOptions?: MachineOptions;
  /** Observes every tool call the code makes (call, progress, result). */
  onToolCall?: (event: ToolCallEvent) => void;
  /** Tools to install right away (same as `setTools`). */
  tools?: readonly Tool[];
}

type DoneMessage = Extract<HarnessMessage, { op: "done" }>;

/**
 * What an executor keeps in its machine's snapshot (`snapshot`): where its harness is, and the
 * step that was waiting on tool calls when it was taken, if one was.
 */
export interface ExecutorSnapshotNote {
  kind: "micro-vm-executor";
  harnessExecId: number;
  /** The step's code and the tool calls it waits on; absent for a snapshot between steps. */
  waiting?: { code: string; calls: ToolMessage[] };
  /** The caller's own note (`snapshot(path, { note })`). */
  note?: unknown;
}

/** Options of `MicroVmExecutor.restore`: the tools and observer the restored executor has. */
export interface MicroVmExecutorRestoreOptions extends Partial<MicroVmExecutorLimits> {
  machineOptions?: RestoreOptions;
  onToolCall?: (event: ToolCallEvent) => void;
  /**
   * The host tools, by the names the snapshot's harness knows: they answer the calls a resumed
   * step makes (`resumeRun`). They are not sent to the guest again.
   */
  tools?: readonly Tool[];
}

/** An answer to a tool call a restored step was waiting on (`resumeRun`'s `answers`). */
export type ToolCallAnswer = SandboxToolOutcome;

const PYTHON_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names the guest harness defines in every step's globals. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(["final_answer", "ToolError", "ValidationError"]);
const ERROR_KINDS: ReadonlySet<string> = new Set(EXECUTION_ERROR_KINDS);

/** Boots a machine for the executor: Debian's python3 image unless the config names another, 512 MiB. */
export async function bootPythonMachine(
  config: Partial<VmConfigInput> = {},
  machineOptions: MachineOptions = {},
): Promise<Machine> {
  const image = config.image ?? (await buildDebianPythonImage(machineOptions.cacheDir ?? defaultCacheDir()));
  return Machine.create({ memory: 512, ...config, image }, machineOptions);
}

/** What a micro-VM executor declares for a network setting of its machine. */
export function microVmCapabilities(
  network: { enabled?: boolean; allowHosts?: readonly string[] } = {},
): ExecutorCapabilities {
  return Object.freeze({
    language: "python",
    persistentState: true,
    tools: true,
    isolation: "vm",
    network: !network.enabled ? "none" : network.allowHosts?.length ? "allow-list" : "full",
    // A run waiting on a tool call is saved whole (a snapshot) rather than replayed.
    snapshots: true,
  });
}

/**
 * Python code actions in a micro-VM: a long-lived CPython in the guest keeps state across runs,
 * host tools are plain functions there whose calls travel over the guest agent's channel (so they
 * work with the network off), and time limits are enforced in the guest (SIGALRM), with the host
 * killing the interpreter only if the guest stops answering.
 *
 * The lifecycle (a new interpreter for a lost one, the busy rule, run supervision, close) is
 * kit's `SandboxedExecutor`, as for QuickJS and Python; this class says how to talk to the
 * guest harness.
 */
export class MicroVmExecutor extends SandboxedExecutor<ToolMessage, GuestRepl, DoneMessage> {
  readonly language = "python" as const;
  readonly capabilities: ExecutorCapabilities;
  protected readonly executorName = "MicroVmExecutor";
  /** A restored machine's harness, taken by the first `acquireHost` instead of starting one. */
  private adopted: GuestRepl | undefined;
  /** Tool calls of the step under way that have no answer yet (a snapshot records them). */
  private readonly unanswered = new Map<number, ToolMessage>();
  private runningCode: string | undefined;
  /** The step a restored snapshot was waiting in, until `resumeRun` finishes it. */
  private restoredStep: { code: string; calls: ToolMessage[] } | undefined;

  private constructor(
    /** The machine the interpreter runs in (shared when it was given, else this executor's own). */
    readonly machine: Machine,
    private readonly ownsMachine: boolean,
    protected readonly limits: Readonly<MicroVmExecutorLimits>,
    onToolCall: ((event: ToolCallEvent) => void) | undefined,
  ) {
    super();
    this.onToolCall = onToolCall;
    this.capabilities = microVmCapabilities(machine.config.network);
  }

  static async create(options: MicroVmExecutorOptions = {}): Promise<MicroVmExecutor> {
    const limits = resolveMicroVmExecutorLimits(limitOptions(options, DEFAULT_MICRO_VM_EXECUTOR_LIMITS));
    let machine = options.machine;
    const owns = !machine;
    if (!machine)
      machine = options.pool
        ? await options.pool.acquire()
        : await bootPythonMachine(options.config, options.machineOptions);
    // A pool restored from an executor's snapshot hands out machines whose interpreter runs.
    const note = machine.snapshotNote as ExecutorSnapshotNote | undefined;
    if (options.pool && note?.kind === "micro-vm-executor" && !note.waiting) {
      try {
        const adopted = await MicroVmExecutor.adopt(machine, options);
        if (options.tools) await adopted.setTools(options.tools);
        return adopted;
      } catch (error) {
        await machine.stop();
        throw error;
      }
    }
    const executor = new MicroVmExecutor(machine, owns, limits, options.onToolCall);
    try {
      await executor.open(options.tools);
    } catch (error) {
      if (owns) await machine.stop();
      throw error;
    }
    return executor;
  }

  /**
   * An executor over a machine restored from `snapshot`, in this process or another: the Python
   * state, the tools' names and, when the snapshot was taken while a step waited on tool calls,
   * that step (`waitingToolCalls`, finished by `resumeRun`). The executor owns the machine.
   */
  static async restore(path: string, options: MicroVmExecutorRestoreOptions = {}): Promise<MicroVmExecutor> {
    const machine = await Machine.restore(path, options.machineOptions);
    try {
      return await MicroVmExecutor.adopt(machine, options);
    } catch (error) {
      await machine.stop();
      throw error;
    }
  }

  private static async adopt(
    machine: Machine,
    options: MicroVmExecutorRestoreOptions,
  ): Promise<MicroVmExecutor> {
    const note = machine.snapshotNote as ExecutorSnapshotNote | undefined;
    if (note?.kind !== "micro-vm-executor")
      throw new ConfigError(
        `${machine.info.restoredFrom}: this snapshot is of a machine, not of a MicroVmExecutor; restore it with Machine.restore`,
      );
    const limits = resolveMicroVmExecutorLimits(limitOptions(options, DEFAULT_MICRO_VM_EXECUTOR_LIMITS));
    const executor = new MicroVmExecutor(machine, true, limits, options.onToolCall);
    executor.adopted = GuestRepl.attach(machine, note.harnessExecId, limits.maxHarnessLineChars);
    if (note.waiting) executor.restoredStep = note.waiting;
    await executor.open(undefined);
    // The harness has these names already (and may be inside a step that would take a `tools`
    // request for its tool call's answer): they are the host's side only.
    executor.tools = new Map((options.tools ?? []).map((tool) => [tool.name, tool]));
    return executor;
  }

  /**
   * Saves the executor's machine to `path` (see `Machine.snapshot`), with what `restore` needs
   * to find the interpreter again. Taken between steps, or while a step waits on tool calls:
   * the restored executor then finishes that step with `resumeRun` (another process may, after
   * this one has exited). Not while a step computes.
   */
  async snapshot(path: string, options: { note?: unknown; stop?: boolean } = {}): Promise<SnapshotInfo> {
    return this.machine.snapshot(path, {
      note: this.snapshotNote(options.note),
      ...(options.stop ? { stop: true } : {}),
    });
  }

  /** The tool calls the restored step is waiting on (empty when the snapshot was between steps). */
  get waitingToolCalls(): readonly ToolMessage[] {
    return this.restoredStep?.calls ?? [];
  }

  /**
   * Finishes the step a restored snapshot was waiting in: each waiting tool call gets its answer
   * from `answers` (by call id) or, failing that, from this executor's tool of its name; the
   * step then runs on to its result, within `timeoutMs`.
   */
  async resumeRun(
    options: ExecutorRunOptions & { answers?: ReadonlyMap<number, ToolCallAnswer> } = {},
  ): Promise<ExecutionResult> {
    this.assertIdle("resumeRun()");
    const step = this.restoredStep;
    if (!step)
      throw new ConfigError("resumeRun: no step is waiting: the snapshot was taken between steps; use run()");
    const timeoutMs = options.timeoutMs ?? this.limits.timeoutMs;
    const run = newExecutorRun(timeoutMs, {
      handler: options.onApproval,
      timeoutMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    });
    const started = performance.now();
    this.active = run;
    this.restoredStep = undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const host = await this.ready();
      const done = host.nextAnswer();
      for (const call of step.calls) {
        const answer = options.answers?.get(call.id);
        if (answer)
          host.send({
            op: "tool-result",
            id: call.id,
            ...(answer.ok ? { ok: true, json: answer.json ?? null } : answer),
          });
        else this.handleToolCall(call);
      }
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          host.interrupt();
          reject(new ConfigError(`resumeRun: the step did not finish within ${timeoutMs} ms (timeoutMs)`));
        }, timeoutMs + this.limits.watchdogGraceMs);
      });
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => {
          host.interrupt();
          reject(new AbortError("The resumed step was aborted"));
        };
        if (options.signal?.aborted) onAbort();
        else options.signal?.addEventListener("abort", onAbort, { once: true });
      });
      const answer = await Promise.race([done, timeout, aborted]);
      if (answer.op !== "done")
        throw new SandboxProtocolError(`the guest harness answered ${answer.op} to a resumed step`);
      return this.toResult(answer, run, step.code, started);
    } finally {
      clearTimeout(timer);
      for (const clockTimer of run.clock.timers) clearTimeout(clockTimer);
      if (onAbort) options.signal?.removeEventListener("abort", onAbort);
      // A tool still running for the step learns that it ended (kit does the same after a run).
      run.controller?.abort(new Error("the resumed step ended"));
      this.active = undefined;
    }
  }

  /** The spec's name for `snapshot` while a step waits on a tool call (`capabilities.snapshots`). */
  async saveWaitingRun(path: string): Promise<void> {
    await this.snapshot(path);
  }

  /** The spec's name for `resumeRun` (`ExecutorFactory.restore`'s executor). */
  finishWaitingRun(options: ExecutorRunOptions = {}): Promise<ExecutionResult> {
    return this.resumeRun(options);
  }

  /**
   * Clones this executor's machine `count` times (`Machine.fork`) and returns an executor over
   * each clone, with the same Python state and tools: two continuations of one state. Between
   * steps only; this executor runs on.
   */
  async fork(count = 1): Promise<MicroVmExecutor[]> {
    this.assertIdle("fork()");
    const machines = await this.machine.fork(count, { note: this.snapshotNote(undefined) });
    const executors: MicroVmExecutor[] = [];
    try {
      for (const machine of machines) {
        executors.push(
          await MicroVmExecutor.adopt(machine, {
            ...this.limits,
            tools: [...this.tools.values()],
            ...(this.onToolCall ? { onToolCall: this.onToolCall } : {}),
          }),
        );
      }
      return executors;
    } catch (error) {
      await Promise.all(machines.map((machine) => machine.stop()));
      throw error;
    }
  }

  private snapshotNote(note: unknown): ExecutorSnapshotNote {
    if (this.active && this.unanswered.size === 0)
      throw new ConfigError(
        "snapshot: a step is computing; take the snapshot between steps, or while the step waits on a tool call",
      );
    return {
      kind: "micro-vm-executor",
      harnessExecId: this.host.execId,
      ...(this.active
        ? { waiting: { code: this.runningCode ?? "", calls: [...this.unanswered.values()] } }
        : {}),
      ...(note !== undefined ? { note } : {}),
    };
  }

  // ── how to talk to the guest harness ────────────────────────────────────────────────────

  protected acquireHost(): Promise<GuestRepl> {
    const adopted = this.adopted;
    this.adopted = undefined;
    if (adopted) return Promise.resolve(adopted);
    return GuestRepl.start(this.machine, this.limits.maxHarnessLineChars);
  }

  /** The harness has nothing to set up: its limits come with each run. */
  protected async initHost(): Promise<void> {}

  /** An own machine stops with the executor; in a shared one only this interpreter ends. */
  protected override releaseHost(host: GuestRepl): Promise<void> {
    return this.ownsMachine ? this.machine.stop() : host.terminate();
  }

  protected async installTools(host: GuestRepl): Promise<void> {
    await host.request({ op: "tools", names: [...this.tools.keys()] });
  }

  protected async installVariables(host: GuestRepl, entries: readonly VariableEntry[]): Promise<void> {
    const json = `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value ?? "null"}`).join(",")}}`;
    await host.request({ op: "vars", json });
  }

  protected async resetHost(host: GuestRepl): Promise<void> {
    await host.request({ op: "reset" });
  }

  /** The guest keeps the time limit itself (SIGALRM); the host arms only the watchdog. */
  protected async startRun(host: GuestRepl, code: string, run: ExecutorRun): Promise<DoneMessage> {
    const { maxOutputChars } = this.limits;
    this.runningCode = code;
    this.unanswered.clear();
    const answer = await host.request({ op: "run", code, timeoutMs: run.timeoutMs, maxOutputChars });
    this.unanswered.clear();
    if (answer.op !== "done")
      throw new SandboxProtocolError(`the guest harness answered ${answer.op} to a run`);
    return answer;
  }

  /** SIGINT to the step in progress: it raises KeyboardInterrupt there. */
  protected interruptHost(host: GuestRepl): void {
    host.interrupt();
  }

  protected override hungMessage(run: ExecutorRun): string {
    return `the step ran longer than its time limit of ${run.timeoutMs} ms and did not stop; its interpreter was killed`;
  }

  protected toResult(done: DoneMessage, run: ExecutorRun, code: string, started: number): ExecutionResult {
    return {
      output: done.error ? undefined : done.value,
      logs: boundOutput(String(done.logs ?? ""), this.limits.maxOutputChars, Number(done.cut) || 0),
      isFinalAnswer: done.final === true,
      ...(done.error ? { error: this.executionError(done.error, code) } : {}),
      ...(run.images.length ? { images: run.images } : {}),
      durationMs: performance.now() - started,
    };
  }

  /** A tool call from guest code: run it on the host and write the outcome back. */
  protected override holdSandboxClock(host: GuestRepl, _run: ExecutorRun, held: boolean): void {
    host.send({ op: "clock", held });
  }

  protected handleToolCall(call: ToolMessage): void {
    const run = this.active;
    if (!run || run.stop) return;
    const host = this.host;
    this.unanswered.set(call.id, call);
    const reply = (outcome: SandboxToolOutcome) => {
      this.unanswered.delete(call.id);
      host.send({
        op: "tool-result",
        id: call.id,
        ...(outcome.ok ? { ok: true, json: outcome.json ?? null } : outcome),
      });
    };
    const tool = this.tools.get(call.name);
    let input: unknown;
    try {
      if (!tool) throw new Error(`no tool named ${call.name}`);
      input = toolInputFromCall(tool, call.args, call.kwargs);
    } catch (error) {
      reply({
        ok: false,
        name: "ToolError",
        message: `Tool "${call.name}" failed: ${describeThrown(error)}`,
      });
      return;
    }
    this.callTool(run, tool, input, `vm-${call.id}`, reply);
  }

  protected override toolNameProblem(name: string): string | undefined {
    if (PYTHON_IDENTIFIER.test(name) && !RESERVED_NAMES.has(name)) return undefined;
    return `in Python: use an identifier other than ${[...RESERVED_NAMES].join(", ")}`;
  }

  protected override variableNameProblem(name: string): string | undefined {
    if (!PYTHON_IDENTIFIER.test(name)) return ": it is not a Python identifier";
    return super.variableNameProblem(name);
  }

  /**
   * The guest's error as a value. KeyboardInterrupt reaches here only when the host did not
   * interrupt (it throws then): the code raised it itself, an ordinary runtime error.
   */
  private executionError(error: NonNullable<DoneMessage["error"]>, code: string): ExecutionError {
    const line = typeof error.line === "number" && error.line > 0 ? error.line : undefined;
    const lineText = line ? code.split("\n")[line - 1] : undefined;
    return {
      kind: ERROR_KINDS.has(error.kind) ? (error.kind as ExecutionErrorKind) : "runtime",
      name: String(error.name),
      message: String(error.message),
      ...(line ? { line } : {}),
      ...(lineText !== undefined ? { lineText } : {}),
    };
  }
}
