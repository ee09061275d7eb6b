import { createRequire } from "node:module";
import { dirname } from "node:path";
import {
  launchOsSandbox,
  type OsSandboxLimits,
  type OsSandboxProgram,
  RemoteCallError,
  SandboxConnection,
  type SandboxExitError,
  sandboxProgramDir,
} from "@atrium/kit";
import { ConfigError } from "@atrium/spec";
import { PythonWorkerRequestError } from "../errors.js";
import { pythonHarness } from "../harness/harness-file.js";
import type { PythonSandboxClient, SandboxRequest, ToolCallMessage } from "../python-sandbox-client.js";
import { pythonWorkerExit } from "../python-worker-client.js";
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
  /** The Python harness the sandbox runs (default: the package's own, `pythonHarness()`). */
  harness?: string;
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
  private exited: SandboxExitError | undefined;

  private constructor(
    private readonly sandbox: SandboxConnection,
    private readonly requestTimeoutMs: number,
  ) {
    sandbox.endpoint.onClose((error) => {
      this.exited ??= pythonWorkerExit(error.message);
    });
  }

  static async spawn(options: PythonProcessSpawnOptions = {}): Promise<PythonProcessClient> {
    const program = pythonSandboxProgram(options.programDir ?? (await programDir()));
    let booted = false;
    let snapshotTaken = false;
    let client: PythonProcessClient | undefined;
    const sandbox: SandboxConnection = new SandboxConnection(launchOsSandbox(program, options.limits), {
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
          sandbox.kill(`the sandbox sent an event that is not part of the protocol (${name})`);
        } else if (!sandbox.runsPending) {
          // Python calls a tool only from inside a step: one at any other time is forged.
          sandbox.kill("the sandbox called a tool while no step was running");
        } else {
          client?.onToolCall?.(message);
        }
      },
    });
    client = new PythonProcessClient(sandbox, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
    const timer = setTimeout(
      () => sandbox.kill(`the sandbox did not boot within ${BOOT_TIMEOUT_MS} ms`),
      BOOT_TIMEOUT_MS,
    );
    timer.unref();
    try {
      // Straight on the channel, not through `call`: a boot must not keep the process alive on
      // its own (a pool warming in the background); whoever waits for it does.
      await sandbox.endpoint.call(
        "boot",
        [options.harness ?? pythonHarness()],
        options.snapshot ? { attachment: options.snapshot } : {},
      );
      booted = true;
      sandbox.endpoint.refuseBytesFrames();
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
    try {
      // A run has the executor's own watchdog; anything else must not wait on a sandbox forever.
      const value = await this.sandbox.call("request", [message], {
        run: message.type === "run",
        timeoutMs: this.requestTimeoutMs,
      });
      if (message.type !== "run") return undefined;
      const result = asHarnessRunResult(value);
      if (!result) {
        const exit = pythonWorkerExit("the sandbox answered a run with a value that is not a run's result");
        this.fail(exit);
        throw exit;
      }
      return result;
    } catch (error) {
      if (!(error instanceof RemoteCallError)) throw this.exited ?? error;
      if (error.name === "SandboxExitError") {
        // The interpreter broke inside the sandbox: the whole process goes.
        const exit = pythonWorkerExit(error.message.replace(/^the Python sandbox worker exited: /, ""));
        this.fail(exit);
        throw exit;
      }
      throw Object.assign(new PythonWorkerRequestError(error.message), { name: error.name });
    }
  }

  answerTool(callId: number, outcome: ToolOutcome): void {
    this.sandbox.endpoint.notify("answerTool", [callId, outcome]);
  }

  interrupt(): void {
    this.sandbox.endpoint.notify("interrupt");
  }

  clearInterrupt(): void {
    this.sandbox.endpoint.notify("clearInterrupt");
  }

  /** The process's last words on stderr (bubblewrap's or Node's), for diagnostics. */
  diagnostics(): string {
    return this.sandbox.stderrTail();
  }

  async terminate(): Promise<void> {
    this.exited ??= pythonWorkerExit("terminated");
    await this.sandbox.terminate(this.exited.message);
  }

  private fail(error: SandboxExitError): void {
    this.exited ??= error;
    this.sandbox.kill(error.message);
  }
}
