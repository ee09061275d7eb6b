/**
 * The main thread of the OS-sandboxed Python process (see python-process-client.ts for the
 * host's side). It runs no guest code: it starts the interpreter's worker thread beside it and
 * relays the host's requests, tool outcomes and interrupts to it, and its tool calls back. It
 * is a process of its own so that the operating system, not the interpreter's guards, is the
 * boundary around guest code; it is a relay, rather than the interpreter itself, so that an
 * interrupt can reach the worker while the worker is busy running Python.
 */
import { serveRemote } from "@atrium/kit";
import { PythonWorkerClient } from "../python-worker-client.js";
import { MAX_SANDBOX_JSON_BYTES, MAX_SNAPSHOT_BYTES, SANDBOX_PYODIDE_DIR } from "./python-sandbox-layout.js";

let client: PythonWorkerClient | undefined;

function live(): PythonWorkerClient {
  if (!client) throw new Error("the sandbox has not booted its interpreter");
  return client;
}

const server = serveRemote({
  input: process.stdin,
  output: process.stdout,
  maxJsonBytes: MAX_SANDBOX_JSON_BYTES,
  maxBytesBytes: MAX_SNAPSHOT_BYTES,

  onClose: () => process.exit(0),
  handlers: {
    async boot([harness], attachment) {
      if (client) throw new Error("the sandbox's interpreter is already booted");
      if (typeof harness !== "string") throw new Error("the sandbox was booted without its harness");
      let snapshot: SharedArrayBuffer | undefined;
      if (attachment) {
        snapshot = new SharedArrayBuffer(attachment.byteLength);
        new Uint8Array(snapshot).set(attachment);
      }
      client = await PythonWorkerClient.spawn({
        ...(snapshot ? { snapshot } : {}),
        onSnapshot: (made) => server.emit("snapshot", undefined, new Uint8Array(made)),
        pyodideFiles: {
          moduleUrl: `file://${SANDBOX_PYODIDE_DIR}/pyodide.mjs`,
          indexURL: `${SANDBOX_PYODIDE_DIR}/`,
        },
        workerEntry: { url: new URL("./python-sandbox-worker.mjs", import.meta.url) },
        harness,
      });
      client.onToolCall = (message) => server.emit("tool-call", message);
    },
    request([message]) {
      return live().request(message as Parameters<PythonWorkerClient["request"]>[0]);
    },
    answerTool([callId, outcome]) {
      live().answerTool(callId as number, outcome as Parameters<PythonWorkerClient["answerTool"]>[1]);
    },
    interrupt() {
      live().interrupt();
    },
    clearInterrupt() {
      live().clearInterrupt();
    },
  },
});
