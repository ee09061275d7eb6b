import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import type { Socket } from "node:net";
import { dirname } from "node:path";
import {
  launchOsSandbox,
  type OsSandboxLimits,
  type OsSandboxProgram,
  RemoteCallError,
  RemoteEndpoint,
  sandboxProgramDir,
} from "@atrium/kit";
import { ConfigError } from "@atrium/spec";
import type { PythonSandboxClient, SandboxRequest, ToolCallMessage } from "../python-sandbox-client.js";
import { PythonWorkerExit, PythonWorkerRequestError } from "../python-worker-client.js";
import type { HarnessRunResult, ToolOutcome } from "../worker-protocol.js";
import { MAX_SANDBOX_JSON_BYTES, MAX_SNAPSHOT_BYTES, SANDBOX_PYODIDE_DIR } from "./python-sandbox-layout.js";

import { asHarnessRunResult, asToolCallMessage } from "./sandbox-message-checks.js";

/** How long a sandboxed interpreter may take to boot before it is given up on. */
const BOOT_TIMEOUT_MS = 60_000;
/** How long a request other than a run (tools, variables, reset) may take before the sandbox is given up on. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface PythonProcessSpawnOptions {
  /** Bytes of a fresh interpreter's memory snapshot to restore. */
  snapshot?: Uint8Array;
  /** Receives the snapshot the sandbox makes when it booted without one. */
  onSnapshot?: (snapshot: Uint8Array) => void;
  limits?: Partial<OsSandboxLimits>;
  /**
   * The folder whose `python-sandbox.mjs` runs in the sandbox: the package's own unless a test
   * puts a hostile stand-in there, to check what the host does with what it says.
   */
  programDir?: string;
  /** How long a request other than a run may take (default 30 s). */
  requestTimeoutMs?: number;
}

/** The files of the sandboxed process: bundles beside the package's index, or built from source. */
function programDir(): Promise<string> {
  return sandboxProgramDir({
    from: import.meta.url,
    sources: {
      "python-sandbox.mjs": "./python-sandbox.ts",
      "python-sandbox-worker.mjs": "../worker/python-worker.ts",
    },
    builtDir: "./sandbox/",
  });
}

/**
 * What the Python sandbox runs, and with what: Node on `main` from `dir`, Pyodide's files
 * mounted read-only, one worker thread allowed (the interpreter's, so the main thread stays
 * free to deliver interrupts). Exported so a test can run its own program under exactly the
 * Python sandbox's arguments.
 */
export function pythonSandboxProgram(dir: string, main = "python-sandbox.mjs"): OsSandboxProgram {
  const pyodideDir = dirname(createRequire(import.meta.url).resolve("pyodide/package.json"));
  return { dir, main, mounts: [{ host: pyodideDir, at: SANDBOX_PYODIDE_DIR }], allowWorker: true };
}

/**
 * The host's handle on a Python interpreter in an OS-sandboxed process (`@atrium/kit`'s
 * launcher: bubblewrap, seccomp, resource limits, an unprivileged uid, Node's permission
 * model). Same interface as the in-thread `PythonWorkerClient`; the requests cross a pipe to
 * the sandbox's relay (python-sandbox.ts). Nothing the sandbox sends is trusted: replies and
 * tool calls are checked before use, and a sandbox that breaks the protocol is killed.
 */
export class PythonProcessClient implements PythonSandboxClient {
  onToolCall: ((message: ToolCallMessage) => void) | undefined;
  /** Run requests waiting for their reply: tool calls are only legitimate while there is one. */
  runsPending = 0;
  private exited: PythonWorkerExit | undefined;
  private readonly exitedPromise: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly endpoint: RemoteEndpoint,
    private readonly stderrTail: () => string,
    private readonly requestTimeoutMs: number,
  ) {
    this.exitedPromise = new Promise((resolve) => child.once("close", () => resolve()));
    endpoint.onClose((error) => this.fail(new PythonWorkerExit(error.message)));
    this.setRef(false);
  }

  static async spawn(options: PythonProcessSpawnOptions = {}): Promise<PythonProcessClient> {
    const sandbox = launchOsSandbox(
      pythonSandboxProgram(options.programDir ?? (await programDir())),
      options.limits,
    );
    const { child } = sandbox;
    let booted = false;
    let snapshotTaken = false;
    let client: PythonProcessClient | undefined;
    const endpoint = new RemoteEndpoint({
      input: child.stdin as NonNullable<ChildProcess["stdin"]>,
      output: child.stdout as NonNullable<ChildProcess["stdout"]>,
      maxJsonBytes: MAX_SANDBOX_JSON_BYTES,
      maxBytesBytes: MAX_SNAPSHOT_BYTES,
      onEvent(name, payload, attachment) {
        if (name === "snapshot" && !booted && !snapshotTaken && attachment && !options.snapshot) {
          // Made before any guest code existed in that process: a fresh interpreter's memory.
          snapshotTaken = true;
          options.onSnapshot?.(attachment);
          return;
        }
        const message = name === "tool-call" ? asToolCallMessage(payload) : undefined;
        if (!message) {
          endpoint.close(`the sandbox sent an event that is not part of the protocol (${name})`);
        } else if (!client?.runsPending) {
          // Python calls a tool only from inside a step: one at any other time is forged.
          endpoint.close("the sandbox called a tool while no step was running");
        } else {
          client.onToolCall?.(message);
        }
      },
    });
    child.once("close", (code, signal) => {
      const why = signal ? `signal ${signal}` : `exit code ${String(code)}`;
      const said = sandbox.stderrTail();
      endpoint.close(
        `the sandbox process ended (${why})${said ? `: ${said.split("\n").slice(-3).join(" / ")}` : ""}`,
      );
    });
    child.once("error", (error) => endpoint.close(`the sandbox process could not start: ${error.message}`));
    client = new PythonProcessClient(
      child,
      endpoint,
      sandbox.stderrTail,
      options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    );
    client.setRef(false);
    const timer = setTimeout(
      () => endpoint.close(`the sandbox did not boot within ${BOOT_TIMEOUT_MS} ms`),
      BOOT_TIMEOUT_MS,
    );
    timer.unref();
    try {
      await endpoint.call("boot", [], options.snapshot ? { attachment: options.snapshot } : {});
      booted = true;
      endpoint.refuseBytesFrames();
    } catch (error) {
      await client.terminate();
      const detail = error instanceof Error ? error.message : String(error);
      throw new ConfigError(`Pyodide did not start in the OS sandbox: ${detail}`);
    } finally {
      clearTimeout(timer);
    }
    return client;
  }

  get healthy(): boolean {
    return !this.exited;
  }

  request(message: Extract<SandboxRequest, { type: "run" }>): Promise<HarnessRunResult>;
  request(message: SandboxRequest): Promise<void>;
  async request(message: SandboxRequest): Promise<unknown> {
    if (this.exited) throw this.exited;
    if (this.endpoint.pendingCalls === 0) this.setRef(true);
    const isRun = message.type === "run";
    if (isRun) this.runsPending++;
    try {
      // A run has the executor's own watchdog; anything else must not wait on a sandbox forever.
      const value = await this.endpoint.call(
        "request",
        [message],
        isRun ? {} : { timeoutMs: this.requestTimeoutMs },
      );

      if (message.type !== "run") return undefined;
      const result = asHarnessRunResult(value);
      if (!result) {
        const exit = new PythonWorkerExit(
          "the sandbox answered a run with a value that is not a run's result",
        );
        this.fail(exit);
        throw exit;
      }
      return result;
    } catch (error) {
      if (!(error instanceof RemoteCallError)) throw this.exited ?? error;
      if (error.name === "PythonWorkerExit") {
        // The interpreter broke inside the sandbox: the whole process goes.
        const exit = new PythonWorkerExit(error.message.replace(/^the Python sandbox worker exited: /, ""));
        this.fail(exit);
        throw exit;
      }
      throw Object.assign(new PythonWorkerRequestError(error.message), { name: error.name });
    } finally {
      if (isRun) this.runsPending--;
      if (this.endpoint.pendingCalls === 0) this.setRef(false);
    }
  }

  answerTool(callId: number, outcome: ToolOutcome): void {
    this.endpoint.notify("answerTool", [callId, outcome]);
  }

  interrupt(): void {
    this.endpoint.notify("interrupt");
  }

  clearInterrupt(): void {
    this.endpoint.notify("clearInterrupt");
  }

  /** The process's last words on stderr (bubblewrap's or Node's), for diagnostics. */
  diagnostics(): string {
    return this.stderrTail();
  }

  async terminate(): Promise<void> {
    // Whoever waits for the end keeps the process alive until it comes.
    this.setRef(true);
    this.fail(new PythonWorkerExit("terminated"));
    await this.exitedPromise;
  }

  private fail(error: PythonWorkerExit): void {
    if (this.exited) return;
    this.exited = error;
    this.endpoint.close(error.message);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  /** An idle sandbox must not keep the host process alive; one with a request pending must. */
  private setRef(on: boolean): void {
    for (const handle of [
      this.child,
      this.child.stdout as Socket | null,
      this.child.stderr as Socket | null,
    ]) {
      if (on) handle?.ref?.();
      else handle?.unref?.();
    }
  }
}
