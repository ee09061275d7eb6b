import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import type { QuickJSWASMModule } from "quickjs-emscripten";
import { DEFAULT_QUICKJS_LIMITS } from "../../limits.js";
import { useQuickJsWasmFile } from "./quickjs-module.js";
import { SandboxSession } from "./session/sandbox-session.js";
import {
  ChannelSlot,
  channelControl,
  type HostToWorker,
  type RunNotice,
  STOP_FLAG,
  WORKER_READY,
  type WorkerToHost,
} from "./worker-protocol.js";

/**
 * Entry point of a sandbox worker thread: one `SandboxSession` at a time, driven by requests
 * from `QuickJsExecutor` over the shared-memory channel (see worker-protocol.ts). Requests are
 * served in order. The worker blocks in `Atomics.wait` whenever it has nothing else to do (no
 * request, or a run waiting for tool results), so it never leaves work pending on its own event
 * loop while it blocks: a session being prepared is awaited first.
 */
if (!parentPort) throw new Error("sandbox-worker must run in a worker thread");
const { memory, port, wasmFile } = workerData as {
  memory: SharedArrayBuffer;
  port: MessagePort;
  /** QuickJS's wasm file, when it is not the package's (the OS sandbox mounts it apart). */
  wasmFile?: string;
};
if (wasmFile) useQuickJsWasmFile(wasmFile);
const control = channelControl(memory);
const inbox = ChannelSlot.toWorker(memory, port);
const outbox = ChannelSlot.toHost(memory, port);
/** Requests that arrived while a run was waiting for tool results; served after that run. */
const backlog: HostToWorker[] = [];
// Nothing else holds this thread's event loop open while it awaits (a new wasm instance is
// compiled and instantiated asynchronously); the channel is plain shared memory.
setInterval(() => undefined, 2 ** 30);

let session: SandboxSession | undefined;
/**
 * The session for the next executor, built while the worker is idle (on the wasm instance the
 * previous session released, when it could be reused), so `init` only applies limits.
 */
let next: Promise<SandboxSession> | undefined;

function send(message: WorkerToHost): void {
  // The host empties its slot from its event loop; until it has, there is nothing else to do.
  while (!outbox.tryPut(message)) outbox.waitForRoom();
}

/**
 * The next message, waiting at most `timeoutMs`; undefined on timeout or a bare ring of the bell
 * (a stop). With `stopsWait`, a raised stop flag ends the wait before it starts.
 */
function receive(timeoutMs: number, stopsWait: boolean): HostToWorker | undefined {
  const rung = inbox.bell();
  const message = inbox.take();
  if (message || timeoutMs <= 0) return message;
  if (stopsWait && Atomics.load(control, STOP_FLAG) !== 0) return undefined;
  inbox.waitForBell(rung, timeoutMs);
  return inbox.take();
}

/** While a run waits for tool results: takes what the host sends until `until` (epoch ms). */
function waitForHost(until: number): void {
  const message = receive(until - Date.now(), true);
  if (message?.type === "tool-result") {
    session?.deliverToolResult(message.runId, message.callId, message.outcome);
  } else if (message?.type === "clock") {
    session?.holdClock(message.runId, message.held);
  } else if (message) {
    backlog.push(message);
  }
}

function prepareNext(spare?: QuickJSWASMModule): void {
  next = SandboxSession.create(DEFAULT_QUICKJS_LIMITS, { requestTool, waitForHost }, control, spare);
  // A failure surfaces at the next `init`, which then builds a session itself.
  next.catch(() => undefined);
}

async function takeNext(): Promise<SandboxSession | undefined> {
  const prepared = next;
  next = undefined;
  return prepared?.catch(() => undefined);
}

async function handle(message: Exclude<HostToWorker, RunNotice>): Promise<void> {
  try {
    switch (message.type) {
      case "init": {
        const spare = session?.release();
        session = undefined;
        const prepared = await takeNext();
        session =
          prepared ??
          (await SandboxSession.create(message.limits, { requestTool, waitForHost }, control, spare));
        session.configure(message.limits);
        return send({ type: "reply", id: message.id, ok: true });
      }
      case "run":
        return send({
          type: "reply",
          id: message.id,
          ok: true,
          value: await live().run(message.runId, message.code, message.timeoutMs, message.tape),
        });
      case "set-tools":
        live().setTools(message.names);
        return send({ type: "reply", id: message.id, ok: true });
      case "set-variables":
        // JSON carried an undefined value as null (see worker-protocol.ts).
        live().setVariables(message.entries.map(([name, json]) => [name, json ?? undefined]));
        return send({ type: "reply", id: message.id, ok: true });
      case "memory":
        return send({ type: "reply", id: message.id, ok: true, value: live().memory() });
      case "reset":
        await live().reset();
        return send({ type: "reply", id: message.id, ok: true });
      case "recycle":
        // Built before answering: `close()` pays for the next executor's sandbox, `create()` is a message.
        prepareNext(live().release());
        session = undefined;
        await next;
        return send({ type: "reply", id: message.id, ok: true });
    }
  } catch (error) {
    const { name, message: text } = error instanceof Error ? error : new Error(String(error));
    send({ type: "reply", id: message.id, ok: false, error: { name, message: text } });
  }
}

function live(): SandboxSession {
  if (!session) throw new Error("the sandbox worker has no session (init first)");
  return session;
}

function requestTool(runId: number, callId: string, name: string, json: string): void {
  send({ type: "tool-call", runId, callId, name, json });
}

async function serve(): Promise<never> {
  await next?.catch(() => undefined);
  for (;;) {
    // The stop flag may stay raised while idle (a run stopped as it ended): not a reason to wake.
    const message = backlog.shift() ?? receive(Number.POSITIVE_INFINITY, false);
    // A bare wake-up (the stop flag) while idle, or a notice for a run that is over: nothing to do.
    if (!message || message.type === "tool-result" || message.type === "clock") continue;
    await handle(message);
  }
}

prepareNext();
parentPort.postMessage(WORKER_READY);
void serve();
