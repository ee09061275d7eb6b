/**
 * The main thread of the OS-sandboxed QuickJS process (see quickjs-process-client.ts for the
 * host's side). It runs no guest code: it starts the sandbox's worker thread beside it and
 * relays the host's requests, tool results and stops to it, and its tool calls back. A relay
 * rather than the interpreter itself, so that a stop reaches the worker while it is busy.
 */
import { serveRemote } from "@atrium/kit";
import { SandboxWorker } from "../sandbox-worker-pool.js";
import { MAX_QUICKJS_FRAME_BYTES, SANDBOX_QUICKJS_WASM } from "./quickjs-sandbox-layout.js";

let worker: SandboxWorker | undefined;

function live(): SandboxWorker {
  if (!worker) throw new Error("the sandbox has not started its worker");
  return worker;
}

const server = serveRemote({
  input: process.stdin,
  output: process.stdout,
  maxJsonBytes: MAX_QUICKJS_FRAME_BYTES,
  onClose: () => process.exit(0),
  handlers: {
    async boot() {
      if (worker) throw new Error("the sandbox's worker is already started");
      worker = await SandboxWorker.spawn({
        workerEntry: new URL("./quickjs-sandbox-worker.mjs", import.meta.url),
        wasmFile: SANDBOX_QUICKJS_WASM,
      });
      worker.onToolCall = (message) => server.emit("tool-call", message);
    },
    request([message]) {
      return live().request(message as Parameters<SandboxWorker["request"]>[0]);
    },
    post([message]) {
      live().post(message as Parameters<SandboxWorker["post"]>[0]);
    },
    stop() {
      live().stop();
    },
    clearStop() {
      live().clearStop();
    },
  },
});
