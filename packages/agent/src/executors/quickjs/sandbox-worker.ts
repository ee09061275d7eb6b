import { parentPort, workerData } from "node:worker_threads";
import { SandboxSession } from "./sandbox-session.js";
import type { HostToWorker, SessionLimits, WorkerToHost } from "./worker-protocol.js";

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
let queue: Promise<void> = Promise.resolve();

async function handle(message: HostToWorker & { id: number }): Promise<void> {
  try {
    switch (message.type) {
      case "init":
        session?.dispose();
        session = undefined;
        session = await SandboxSession.create(message.limits, requestTool, stopFlag);
        return post({ type: "reply", id: message.id, ok: true });
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
      case "reset":
        await live().reset();
        return post({ type: "reply", id: message.id, ok: true });
      case "recycle":
        await live().recycle();
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

post({ type: "ready" });

export type { SessionLimits };
