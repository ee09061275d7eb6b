import type { QuickJSWASMModule } from "quickjs-emscripten";
import type { QuickJsLimits } from "../../../limits.js";
import { QuickJsSandbox, type SandboxCallbacks } from "../quickjs-sandbox.js";
import type { JsTape } from "../run-tape.js";
import type { SandboxMemory, SessionRunResult, StepTapeRequest, ToolOutcome } from "../worker-protocol.js";
import { cleanUpRun, recoverFromCrash, renewContext } from "./crash-recovery.js";
import { finalAnswerFromSandbox, printFromSandbox } from "./output-accounting.js";
import type { HostLink, SessionCore } from "./session-core.js";
import { SessionRun } from "./session-run.js";
import {
  describeError,
  endStep,
  evaluateStep,
  prepareScript,
  type Settlement,
  shouldInterrupt,
  stepResult,
} from "./step-evaluation.js";
import { beginTape, emptyTape, lostTape, takeTape } from "./step-tape.js";
import { callToolFromSandbox, deliverToolResult } from "./tool-bridge.js";

export type { HostLink } from "./session-core.js";

/**
 * A wasm instance whose linear memory grew past this is not handed to the next session (wasm
 * memory never shrinks); a fresh one starts at 16 MiB.
 */
const MAX_REUSED_WASM_BYTES = 96 * 1024 * 1024;

/**
 * The QuickJS side of `QuickJsExecutor`, living in the sandbox worker: runs one step at a time
 * with notebook semantics, enforces the limits, and asks the host for tool calls. It owns the
 * sandbox and the run; its parts are modules of functions over it (`SessionCore`): step
 * evaluation, the tool bridge, crash recovery and output accounting. Host-side concerns (tool
 * execution, images, abort/close exceptions) stay on the main thread.
 */
export class SandboxSession implements SessionCore {
  sandbox!: QuickJsSandbox;
  toolNames = new Set<string>();
  active: SessionRun | undefined;
  activeCode = "";
  drainingUntil: number | undefined;
  readonly callbacks: SandboxCallbacks = {
    shouldInterrupt: () => shouldInterrupt(this),
    print: (json) => printFromSandbox(this, json),
    finalAnswer: (json) => finalAnswerFromSandbox(this, json),
    callTool: (name, json) => callToolFromSandbox(this, name, json),
  };

  private constructor(
    public limits: QuickJsLimits,
    readonly link: HostLink,
    readonly stopFlag: Int32Array,
  ) {}

  /** A session on `module` (a wasm instance a previous session released), or on a new one. */
  static async create(
    limits: QuickJsLimits,
    link: HostLink,
    stopFlag: Int32Array,
    module?: QuickJSWASMModule,
  ): Promise<SandboxSession> {
    const session = new SandboxSession(limits, link, stopFlag);
    session.sandbox = module
      ? QuickJsSandbox.onModule(module, limits, session.callbacks)
      : await QuickJsSandbox.create(limits, session.callbacks);
    return session;
  }

  /** `tape`: the step records its non-deterministic sources (run-tape.ts), absent otherwise. */
  async run(
    runId: number,
    code: string,
    timeoutMs: number,
    tape?: StepTapeRequest,
  ): Promise<SessionRunResult> {
    if (this.active) throw new Error("a run is already going on in this sandbox");
    const run = new SessionRun(
      runId,
      `step-${runId}.js`,
      timeoutMs,
      Date.now() + timeoutMs,
      this.limits.maxOutputChars,
    );
    this.active = run;
    this.activeCode = code;
    try {
      return await this.execute(code, run, tape);
    } finally {
      this.active = undefined;
    }
  }

  /** Applies an executor's limits (a session may be built ahead of time with others). */
  configure(limits: QuickJsLimits): void {
    this.limits = limits;
    this.sandbox.runtime.setMemoryLimit(limits.maxMemoryBytes);
    this.sandbox.runtime.setMaxStackSize(limits.maxStackBytes);
  }

  setTools(names: readonly string[]): void {
    for (const name of this.toolNames) {
      if (!names.includes(name)) this.callHelperOrThrow("removeGlobal", `remove tool ${name}`, name);
    }
    this.toolNames = new Set(names);
    this.installTools();
  }

  setVariables(entries: readonly [string, string | undefined][]): void {
    for (const [name, json] of entries)
      this.callHelperOrThrow("setGlobal", `set variable "${name}"`, name, json);
  }

  async reset(): Promise<void> {
    await renewContext(this);
  }

  /**
   * Frees the runtime and context and returns the wasm instance for the next session, unless
   * it cannot be trusted (freeing failed) or its memory grew past `MAX_REUSED_WASM_BYTES`.
   */
  release(): QuickJSWASMModule | undefined {
    const module = this.sandbox.module;
    try {
      this.sandbox.dispose();
    } catch {
      return undefined;
    }
    return module.getWasmMemory().buffer.byteLength <= MAX_REUSED_WASM_BYTES ? module : undefined;
  }

  memory(): SandboxMemory {
    const { runtime, context, module } = this.sandbox;
    const usage = runtime.computeMemoryUsage();
    try {
      const { memory_used_size } = context.dump(usage) as { memory_used_size: number };
      return { usedBytes: memory_used_size, wasmBytes: module.getWasmMemory().buffer.byteLength };
    } finally {
      if (usage.alive) usage.dispose();
    }
  }

  deliverToolResult(runId: number, callId: string, outcome: ToolOutcome): void {
    deliverToolResult(this.active, runId, callId, outcome);
  }

  /** Stops the run's deadline while a tool call waits for a person (`held`), and restarts it after. */
  holdClock(runId: number, held: boolean): void {
    const run = this.active;
    if (run?.id === runId) run.holdClock(held);
  }

  dispose(): void {
    this.sandbox.dispose();
  }

  installTools(): void {
    for (const name of this.toolNames) this.callHelperOrThrow("defineTool", `install tool ${name}`, name);
  }

  private async execute(code: string, run: SessionRun, tape?: StepTapeRequest): Promise<SessionRunResult> {
    const started = performance.now();
    // Start from a fresh, shallow host stack: wasm frames use Node's native stack.
    await null;
    const script = prepareScript(this, code);
    if (typeof script !== "string") {
      const result = stepResult(run, { type: "error", error: script }, false, started);
      return tape ? { ...result, tape: emptyTape() } : result;
    }
    let settlement: Settlement;
    let stateLost = false;
    let recorded: JsTape | undefined;
    try {
      if (tape) beginTape(this, tape);
      settlement = evaluateStep(this, script, run, code);
      endStep(this);
      // Before the clean-up, which may replace the context (and the tape in it).
      if (tape) recorded = takeTape(this);
      stateLost = await cleanUpRun(this, run, settlement);
    } catch (crash) {
      // Only a failure of the wasm instance itself gets here: its memory can no longer be trusted.
      settlement = { type: "error", error: await recoverFromCrash(this, crash) };
      stateLost = true;
    }
    const result = stepResult(run, settlement, stateLost, started);
    return tape ? { ...result, tape: recorded ?? lostTape() } : result;
  }

  private callHelperOrThrow(
    helper: "setGlobal" | "defineTool" | "removeGlobal",
    what: string,
    ...args: (string | undefined)[]
  ): void {
    const result = this.sandbox.callHelper(helper, ...args);
    if (result.error) {
      const described = describeError(this, result.error);
      result.error.dispose();
      throw new Error(`Could not ${what} in the sandbox: ${described.name}: ${described.message}`);
    }
    result.value.dispose();
  }
}
