import { parentPort, workerData } from "node:worker_threads";
import type { QuickJSWASMModule } from "quickjs-emscripten";
import { SandboxSession } from "./sandbox-session.js";
import { DEFAULT_SESSION_LIMITS, type HostToWorker, type WorkerToHost } from "./worker-protocol.js";

/**
 * Entry point of a sandbox worker thread: one `SandboxSession` at a time, driven by messages
 * from `QuickJsExecutor`. Requests are handled in order; while a run awaits tool results the
 * worker still takes `tool-result` and `stop` messages.
 */
const port = parentPort;
if (!port) throw new Error("sandbox-worker must run in a worker thread");
const stopFlag = new Int32Array((workerData as { stopFlag: SharedArrayBuffer }).stopFlag);

const post = (message: WorkerToHost) => port.postMessage(message);
let session: SandboxSession | undefined;
/**
 * The session for the next executor, built while the worker is idle (on the wasm instance the
 * previous session released, when it could be reused), so `init` only applies limits.
 */
let next: Promise<SandboxSession> | undefined;
let queue: Promise<void> = Promise.resolve();

function prepareNext(spare?: QuickJSWASMModule): void {
  next = SandboxSession.create({ ...DEFAULT_SESSION_LIMITS }, requestTool, stopFlag, spare);
  // A failure surfaces at the next `init`, which then builds a session itself.
  next.catch(() => undefined);
}

async function takeNext(): Promise<SandboxSession | undefined> {
  const prepared = next;
  next = undefined;
  return prepared?.catch(() => undefined);
}

async function handle(message: HostToWorker & { id: number }): Promise<void> {
  try {
    switch (message.type) {
      case "init": {
        const spare = session?.release();
        session = undefined;
        const prepared = await takeNext();
        session = prepared ?? (await SandboxSession.create(message.limits, requestTool, stopFlag, spare));
        session.configure(message.limits);
        return post({ type: "reply", id: message.id, ok: true });
      }
      case "run":
        return post({
          type: "reply",
          id: message.id,
          ok: true,
          value: await live().run(message.runId, message.code, message.timeoutMs),
        });
      case "set-tools":
        live().setTools(message.names);
        return post({ type: "reply", id: message.id, ok: true });
      case "set-variables":
        live().setVariables(message.entries);
        return post({ type: "reply", id: message.id, ok: true });
      case "memory":
        return post({ type: "reply", id: message.id, ok: true, value: live().memory() });
      case "reset":
        await live().reset();
        return post({ type: "reply", id: message.id, ok: true });
      case "recycle":
        // Built before answering: `close()` pays for the next executor's sandbox, `create()` is a message.
        prepareNext(live().release());
        session = undefined;
        await next;
        return post({ type: "reply", id: message.id, ok: true });
    }
  } catch (error) {
    const { name, message: text } = error instanceof Error ? error : new Error(String(error));
    post({ type: "reply", id: message.id, ok: false, error: { name, message: text } });
  }
}

function live(): SandboxSession {
  if (!session) throw new Error("the sandbox worker has no session (init first)");
  return session;
}

function requestTool(runId: number, callId: string, name: string, json: string): void {
  post({ type: "tool-call", runId, callId, name, json });
}

port.on("message", (message: HostToWorker) => {
  if (message.type === "tool-result")
    return session?.deliverToolResult(message.runId, message.callId, message.outcome);
  if (message.type === "stop") return session?.stop(message.runId);
  queue = queue.then(() => handle(message));
});

prepareNext();
post({ type: "ready" });
