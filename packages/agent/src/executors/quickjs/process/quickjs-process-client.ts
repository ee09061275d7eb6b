import { basename, dirname } from "node:path";
import {
  launchOsSandbox,
  type OsSandboxProgram,
  RemoteCallError,
  SandboxConnection,
  type SandboxExitError,
  sandboxProgramDir,
} from "@atrium/kit";
import { ConfigError } from "@atrium/spec";
import { packagedWasmFile } from "../quickjs-module.js";
import type { QuickJsSandboxHandle, SandboxRequest, ToolCallMessage } from "../sandbox-handle.js";
import { sandboxWorkerExit } from "../sandbox-worker-pool.js";
import type { RunNotice } from "../worker-protocol.js";
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
  private exited: SandboxExitError | undefined;

  private constructor(private readonly sandbox: SandboxConnection) {
    sandbox.endpoint.onClose((error) => {
      this.exited ??= sandboxWorkerExit(error.message);
    });
  }

  static async spawn(): Promise<QuickJsProcessClient> {
    let client: QuickJsProcessClient | undefined;
    const sandbox: SandboxConnection = new SandboxConnection(
      launchOsSandbox(quickJsSandboxProgram(await programDir())),
      {
        maxJsonBytes: MAX_QUICKJS_FRAME_BYTES,
        onEvent(name, payload) {
          if (name !== "tool-call" || !isRecord(payload) || payload.type !== "tool-call") {
            sandbox.kill(`the sandbox sent an event that is not part of the protocol (${name})`);
          } else if (!sandbox.runsPending) {
            // Guest code calls tools only while a step runs: a call at any other time is forged.
            sandbox.kill("the sandbox called a tool while no step was running");
          } else {
            client?.onToolCall?.(payload as unknown as ToolCallMessage);
          }
        },
      },
    );
    client = new QuickJsProcessClient(sandbox);
    const timer = setTimeout(
      () => sandbox.kill(`the sandbox did not start within ${BOOT_TIMEOUT_MS} ms`),
      BOOT_TIMEOUT_MS,
    );
    try {
      await sandbox.call("boot", []);
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
    try {
      // A run has the executor's own watchdog; anything else must not wait on a sandbox forever.
      return await this.sandbox.call("request", [message], {
        run: message.type === "run",
        timeoutMs: REQUEST_TIMEOUT_MS,
      });
    } catch (error) {
      if (!(error instanceof RemoteCallError)) throw this.exited ?? error;
      if (error.name === "SandboxExitError") {
        const exit = sandboxWorkerExit(error.message.replace(/^the sandbox worker exited: /, ""));
        this.fail(exit);
        throw exit;
      }
      throw Object.assign(new Error(error.message), { name: error.name });
    }
  }

  post(message: RunNotice): void {
    this.sandbox.endpoint.notify("post", [message]);
  }

  stop(): void {
    this.sandbox.endpoint.notify("stop");
  }

  clearStop(): void {
    this.sandbox.endpoint.notify("clearStop");
  }

  async terminate(): Promise<void> {
    this.exited ??= sandboxWorkerExit("terminated");
    await this.sandbox.terminate(this.exited.message);
  }

  private fail(error: SandboxExitError): void {
    this.exited ??= error;
    this.sandbox.kill(error.message);
  }
}
