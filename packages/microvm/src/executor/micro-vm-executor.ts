import { describeThrown, runSandboxToolCall } from "@atrium/kit";
import {
  AbortError,
  ClosedError,
  type CodeExecutor,
  type ExecutionError,
  type ExecutionErrorKind,
  type ExecutionResult,
  type ExecutorCapabilities,
  type ImagePart,
  type RunOptions,
  rethrowIfFatal,
  type Tool,
} from "@atrium/spec";
import { defaultCacheDir } from "../cache-dir.js";
import type { VmConfigInput } from "../config/vm-config.js";
import { buildDebianPythonImage } from "../image/debian-python-image.js";
import { type ExecutorLimits, resolveExecutorLimits } from "../limits.js";
import { Machine, type MachineOptions } from "../machine/machine.js";
import type { WarmPool } from "../pool/warm-pool.js";
import { GuestRepl, type HarnessMessage } from "./guest-repl.js";
import { toolInputFromCall } from "./tool-input.js";

export interface MicroVmExecutorOptions {
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
  limits?: Partial<ExecutorLimits>;
}

type DoneMessage = Extract<HarnessMessage, { op: "done" }>;
type ToolMessage = Extract<HarnessMessage, { op: "tool" }>;

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
 */
export class MicroVmExecutor implements CodeExecutor {
  readonly language = "python" as const;
  readonly capabilities: ExecutorCapabilities;
  private tools = new Map<string, Tool>();
  private closed = false;
  /** Runs, resets and the like go one at a time; each waits for the one before. */
  private queue: Promise<unknown> = Promise.resolve();
  private runImages: ImagePart[] = [];
  private runSignal: AbortSignal | undefined;
  /** Ends the run under way with a fatal error from one of its tool calls (set while it runs). */
  private stopRun: ((fatal: unknown) => void) | undefined;

  private constructor(
    /** The machine the interpreter runs in (shared when it was given, else this executor's own). */
    readonly machine: Machine,
    private readonly ownsMachine: boolean,
    private repl: GuestRepl,
    private readonly limits: Readonly<ExecutorLimits>,
  ) {
    this.capabilities = microVmCapabilities(machine.config.network);
  }

  static async create(options: MicroVmExecutorOptions = {}): Promise<MicroVmExecutor> {
    const limits = resolveExecutorLimits(options.limits);
    let machine = options.machine;
    const owns = !machine;
    if (!machine)
      machine = options.pool
        ? await options.pool.acquire()
        : await bootPythonMachine(options.config, options.machineOptions);
    try {
      const holder: { executor?: MicroVmExecutor } = {};
      const repl = await GuestRepl.start(
        machine,
        (call) => holder.executor?.onTool(call),
        limits.harnessLineMaxChars,
      );
      holder.executor = new MicroVmExecutor(machine, owns, repl, limits);
      return holder.executor;
    } catch (error) {
      if (owns) await machine.stop();
      throw error;
    }
  }

  setTools(tools: readonly Tool[]): Promise<void> {
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
    return this.serially(async () => {
      await this.repl.request({ op: "tools", names: [...this.tools.keys()] });
    });
  }

  setVariables(variables: Record<string, unknown>): Promise<void> {
    const json = JSON.stringify(variables);
    return this.serially(async () => {
      await this.repl.request({ op: "vars", json });
    });
  }

  reset(): Promise<void> {
    return this.serially(async () => {
      await this.repl.request({ op: "reset" });
    });
  }

  run(code: string, options: RunOptions = {}): Promise<ExecutionResult> {
    if (this.closed) return Promise.reject(new ClosedError("this micro-VM executor"));
    if (options.signal?.aborted) return Promise.reject(new AbortError());
    return this.serially(() => this.runNow(code, options));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => {});
    if (this.ownsMachine) await this.machine.stop();
    else await this.repl.kill();
  }

  private async runNow(code: string, options: RunOptions): Promise<ExecutionResult> {
    const started = performance.now();
    const timeoutMs = options.timeoutMs ?? this.limits.defaultTimeoutMs;
    const controller = new AbortController();
    this.runImages = [];
    this.runSignal = controller.signal;
    const answer = this.repl.request({ op: "run", code, timeoutMs, maxLogChars: this.limits.logMaxChars });
    let watchdog: NodeJS.Timeout | undefined;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      controller.abort();
      this.repl.interrupt();
      // A step that ignores SIGINT (a C call, a handler of its own) loses its interpreter.
      watchdog ??= setTimeout(() => void this.repl.kill(), this.limits.interruptGraceMs);
    };
    // A fatal error from a tool ends the run with that error, as in the other executors: the
    // guest is interrupted as for an abort, and the error is what `run` throws.
    let fatal: { error: unknown } | undefined;
    this.stopRun = (error) => {
      fatal ??= { error };
      onAbort();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs > 0)
      watchdog = setTimeout(() => void this.repl.kill(), timeoutMs + this.limits.interruptGraceMs);
    let done: DoneMessage | undefined;
    let crash: string | undefined;
    try {
      const message = await answer;
      if (message.op === "done") done = message;
      else crash = `the guest harness answered ${message.op} to a run`;
    } catch (error) {
      rethrowIfFatal(error);
      crash = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(watchdog);
      options.signal?.removeEventListener("abort", onAbort);
      controller.abort();
      this.stopRun = undefined;
    }
    const durationMs = performance.now() - started;
    if (crash !== undefined) {
      // The interpreter is gone (killed by the watchdog, or it died): start a fresh one.
      const killedAtTimeout = !aborted && timeoutMs > 0 && durationMs >= timeoutMs;
      await this.restart();
      if (fatal) throw fatal.error;
      if (aborted) throw new AbortError("the run was aborted; the guest's Python state was lost");
      return {
        output: undefined,
        logs: "",
        isFinalAnswer: false,
        durationMs,
        error: killedAtTimeout
          ? {
              kind: "timeout",
              name: "TimeoutError",
              message: `the step ran longer than its time limit of ${timeoutMs} ms and did not stop; its interpreter was killed`,
              stateLost: true,
            }
          : { kind: "crashed", name: "GuestCrash", message: crash, stateLost: true },
      };
    }
    const result = done as DoneMessage;
    if (fatal) throw fatal.error;
    if (aborted || result.error?.kind === "aborted") throw new AbortError("the run was aborted");
    return {
      output: result.error ? undefined : result.value,
      logs: result.logs,
      isFinalAnswer: result.final,
      ...(result.error ? { error: this.executionError(result.error, code) } : {}),
      ...(this.runImages.length ? { images: this.runImages } : {}),
      durationMs,
    };
  }

  private executionError(error: NonNullable<DoneMessage["error"]>, code: string): ExecutionError {
    const line = error.line ?? undefined;
    const lineText = line ? code.split("\n")[line - 1] : undefined;
    return {
      kind: error.kind as ExecutionErrorKind,
      name: error.name,
      message: error.message,
      ...(line ? { line } : {}),
      ...(lineText !== undefined ? { lineText } : {}),
    };
  }

  private async restart(): Promise<void> {
    await this.repl.kill();
    this.repl = await GuestRepl.start(
      this.machine,
      (call) => this.onTool(call),
      this.limits.harnessLineMaxChars,
    );
    await this.repl.request({ op: "tools", names: [...this.tools.keys()] });
  }

  /** A tool call from guest code: run it on the host and write the outcome back. */
  private onTool(call: ToolMessage): void {
    const repl = this.repl;
    const images = this.runImages;
    const signal = this.runSignal ?? AbortSignal.abort();
    const stopRun = this.stopRun;
    void this.callTool(call, signal, images).then((outcome) => {
      // A call that outlived its run answers nothing (and must not interrupt the next run).
      if (signal.aborted) return;
      if ("fatal" in outcome) stopRun?.(outcome.fatal);
      else repl.send({ op: "tool-result", id: call.id, ...outcome });
    });
  }

  private async callTool(
    call: ToolMessage,
    signal: AbortSignal,
    images: ImagePart[],
  ): Promise<
    { ok: true; json: string | null } | { ok: false; name: string; message: string } | { fatal: unknown }
  > {
    const tool = this.tools.get(call.name);
    let input: unknown;
    try {
      if (!tool) throw new Error(`no tool named ${call.name}`);
      input = toolInputFromCall(tool, call.args, call.kwargs);
    } catch (error) {
      return {
        ok: false,
        name: "ToolError",
        message: `Tool "${call.name}" failed: ${describeThrown(error)}`,
      };
    }
    const outcome = await runSandboxToolCall({
      tool,
      input,
      id: `vm-${call.id}`,
      signal,
      images,
      maxJsonChars: this.limits.toolResultMaxChars,
      limitName: "toolResultMaxChars",
    });
    if ("fatal" in outcome || !outcome.ok) return outcome;
    return { ok: true, json: outcome.json ?? null };
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => {});
    return next;
  }
}
