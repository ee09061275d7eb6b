import {
  boundOutput,
  describeThrown,
  type ExecutorRun,
  limitOptions,
  SandboxedExecutor,
  SandboxProtocolError,
  type SandboxToolOutcome,
  type ToolCallEvent,
  type VariableEntry,
} from "@atrium/kit";
import {
  EXECUTION_ERROR_KINDS,
  type ExecutionError,
  type ExecutionErrorKind,
  type ExecutionResult,
  type ExecutorCapabilities,
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
import { Machine, type MachineOptions } from "../machine/machine.js";
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
    const executor = new MicroVmExecutor(machine, owns, limits, options.onToolCall);
    try {
      await executor.open(options.tools);
    } catch (error) {
      if (owns) await machine.stop();
      throw error;
    }
    return executor;
  }

  // ── how to talk to the guest harness ────────────────────────────────────────────────────

  protected acquireHost(): Promise<GuestRepl> {
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
    const answer = await host.request({ op: "run", code, timeoutMs: run.timeoutMs, maxOutputChars });
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
    const reply = (outcome: SandboxToolOutcome) =>
      host.send({
        op: "tool-result",
        id: call.id,
        ...(outcome.ok ? { ok: true, json: outcome.json ?? null } : outcome),
      });
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
