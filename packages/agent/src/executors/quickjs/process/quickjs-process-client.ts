import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { basename, dirname } from "node:path";
import {
  launchOsSandbox,
  type OsSandboxProgram,
  RemoteCallError,
  RemoteEndpoint,
  sandboxProgramDir,
} from "@atrium/kit";
import { ConfigError } from "@atrium/spec";
import { packagedWasmFile } from "../quickjs-module.js";
import type { QuickJsSandboxHandle, SandboxRequest, ToolCallMessage } from "../sandbox-handle.js";
import { SandboxWorkerExit } from "../sandbox-worker-pool.js";
import type { HostToWorker } from "../worker-protocol.js";
import { MAX_QUICKJS_FRAME_BYTES, SANDBOX_QUICKJS_WASM } from "./quickjs-sandbox-layout.js";

const BOOT_TIMEOUT_MS = 30_000;
/** How long a request other than a run (tools, variables, reset, recycle) may take. */
const REQUEST_TIMEOUT_MS = 30_000;

function programDir(): Promise<string> {
  return sandboxProgramDir({
    from: import.meta.url,
    sources: {
      "quickjs-sandbox.mjs": "./quickjs-sandbox-relay.ts",
      "quickjs-sandbox-worker.mjs": "../sandbox-worker.ts",
    },
    // Beside index.js (or a chunk) in dist/, or one folder up from dist/cli/main.js.
    builtDir: ["./sandbox/", "../sandbox/"],
  });
}

/** What the QuickJS sandbox process runs, and with what (the same launcher as Python's). */
export function quickJsSandboxProgram(dir: string, main = "quickjs-sandbox.mjs"): OsSandboxProgram {
  const wasm = packagedWasmFile();
  if (basename(wasm) !== basename(SANDBOX_QUICKJS_WASM)) {
    throw new ConfigError(
      `QuickJsExecutor: quickjs-emscripten's wasm file is ${wasm}; expected ${basename(SANDBOX_QUICKJS_WASM)}`,
    );
  }
  return {
    dir,
    main,
    mounts: [{ host: dirname(wasm), at: dirname(SANDBOX_QUICKJS_WASM) }],
    allowWorker: true,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The host's handle on a QuickJS sandbox in an OS-sandboxed process (isolation "process"):
 * the same interface as the in-thread `SandboxWorker`, over a pipe to the sandbox's relay. The
 * executor checks replies and tool calls as it does for a worker; this side refuses anything
 * that is not even shaped as a message and kills a sandbox that sends it.
 */
export class QuickJsProcessClient implements QuickJsSandboxHandle {
  onToolCall: ((message: ToolCallMessage) => void) | undefined;
  /** Run requests waiting for their reply: tool calls are only legitimate while there is one. */
  runsPending = 0;
  private exited: SandboxWorkerExit | undefined;
  private readonly closed: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly endpoint: RemoteEndpoint,
  ) {
    this.closed = new Promise((resolve) => child.once("close", () => resolve()));
    endpoint.onClose((error) => this.fail(new SandboxWorkerExit(error.message)));
  }

  static async spawn(): Promise<QuickJsProcessClient> {
    const sandbox = launchOsSandbox(quickJsSandboxProgram(await programDir()));
    const { child } = sandbox;
    let client: QuickJsProcessClient | undefined;
    const endpoint = new RemoteEndpoint({
      input: child.stdin as NonNullable<ChildProcess["stdin"]>,
      output: child.stdout as NonNullable<ChildProcess["stdout"]>,
      maxJsonBytes: MAX_QUICKJS_FRAME_BYTES,
      onEvent(name, payload) {
        if (name !== "tool-call" || !isRecord(payload) || payload.type !== "tool-call") {
          endpoint.close(`the sandbox sent an event that is not part of the protocol (${name})`);
        } else if (!client?.runsPending) {
          // Guest code calls tools only while a step runs: a call at any other time is forged.
          endpoint.close("the sandbox called a tool while no step was running");
        } else {
          client.onToolCall?.(payload as unknown as ToolCallMessage);
        }
      },
    });
    child.once("close", (code, signal) => {
      const said = sandbox.stderrTail().split("\n").slice(-3).join(" / ");
      endpoint.close(
        `the sandbox process ended (${signal ? `signal ${signal}` : `exit code ${String(code)}`})${said ? `: ${said}` : ""}`,
      );
    });
    child.once("error", (error) => endpoint.close(`the sandbox process could not start: ${error.message}`));
    client = new QuickJsProcessClient(child, endpoint);
    client.setRef(false);
    const timer = setTimeout(
      () => endpoint.close(`the sandbox did not start within ${BOOT_TIMEOUT_MS} ms`),
      BOOT_TIMEOUT_MS,
    );
    try {
      await endpoint.call("boot");
    } catch (error) {
      await client.terminate();
      throw new ConfigError(`QuickJS did not start in the OS sandbox: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
    return client;
  }

  get healthy(): boolean {
    return !this.exited;
  }

  request(message: Extract<SandboxRequest, { type: "run" }>): Promise<never>;
  request(message: SandboxRequest): Promise<never>;
  async request(message: SandboxRequest): Promise<unknown> {
    if (this.exited) throw this.exited;
    if (this.endpoint.pendingCalls === 0) this.setRef(true);
    const isRun = message.type === "run";
    if (isRun) this.runsPending++;
    try {
      // A run has the executor's own watchdog; anything else must not wait on a sandbox forever.
      return await this.endpoint.call("request", [message], isRun ? {} : { timeoutMs: REQUEST_TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof RemoteCallError)) throw this.exited ?? error;
      if (error.name === "SandboxWorkerExit") {
        const exit = new SandboxWorkerExit(error.message.replace(/^the sandbox worker exited: /, ""));
        this.fail(exit);
        throw exit;
      }
      throw Object.assign(new Error(error.message), { name: error.name });
    } finally {
      if (isRun) this.runsPending--;
      if (this.endpoint.pendingCalls === 0) this.setRef(false);
    }
  }

  post(message: Extract<HostToWorker, { type: "tool-result" }>): void {
    this.endpoint.notify("post", [message]);
  }

  stop(): void {
    this.endpoint.notify("stop");
  }

  clearStop(): void {
    this.endpoint.notify("clearStop");
  }

  async terminate(): Promise<void> {
    this.setRef(true);
    this.fail(new SandboxWorkerExit("terminated"));
    await this.closed;
  }

  private fail(error: SandboxWorkerExit): void {
    if (this.exited) return;
    this.exited = error;
    this.endpoint.close(error.message);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

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
