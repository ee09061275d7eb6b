import { parentPort, workerData } from "node:worker_threads";
import { serializeError } from "@atrium/spec";
import { DefenseInDepthBox } from "just-bash";
import type { DocStore } from "../doc-store/doc-store.js";
import { TreeCache } from "../fs/tree-cache.js";
import { type DocsSession, openDocsSession } from "../session/docs-session.js";
import type { FollowedServer } from "../store/chroma/chroma-doc-store.js";
import { openStoreFromRecipe } from "../store/store-recipe.js";
import type { CommandReply, HostMessage, WorkerMessage, WorkerStart } from "./pool-protocol.js";

/**
 * A pool worker thread: it owns the docs sessions pinned to it (their /tmp, working directory
 * and the page cache they share) and runs their commands off the host's event loop. The host
 * decides what runs when; this side runs what it is sent, several commands interleaved.
 */

if (!parentPort) throw new Error("session-worker.ts runs as a worker thread of SessionWorkerPool");
const port = parentPort;
const start = workerData as WorkerStart;
const send = (message: WorkerMessage) => port.postMessage(message);

const sessions = new Map<number, Promise<DocsSession>>();
const running = new Map<number, AbortController>();
const serverAnswers = new Map<number, (url: string) => void>();
let nextRequest = 0;

/** The host's server object, asked over the port: a worker can't hold the process or its record. */
function followedServer(initialUrl: string): FollowedServer {
  let url = initialUrl;
  return {
    get url() {
      return url;
    },
    refresh: () =>
      new Promise<void>((resolve) => {
        const requestId = nextRequest++;
        serverAnswers.set(requestId, (answer) => {
          url = answer;
          resolve();
        });
        send({ type: "where-is-server", requestId });
      }),
  };
}

/**
 * Lets the event loop run once the current stretch of synchronous work passed a time slice. It
 * runs inside commands, where just-bash's defense-in-depth box blocks clocks and timers for
 * script code; this is host code, so it runs in the box's trusted context.
 */
let sliceStart = performance.now();
const sliceUsed = () => performance.now() - sliceStart;
function yieldPoint(): Promise<void> {
  if (DefenseInDepthBox.runTrusted(sliceUsed) < start.timeSliceMs) return Promise.resolve();
  return DefenseInDepthBox.runTrustedAsync(
    () =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          sliceStart = performance.now();
          resolve();
        }),
      ),
  );
}

async function exec(session: DocsSession, message: Extract<HostMessage, { type: "exec" }>) {
  const controller = new AbortController();
  running.set(message.commandId, controller);
  try {
    sliceStart = performance.now();
    const result = await session.exec(message.command, { signal: controller.signal, cwd: message.cwd });
    const reply: CommandReply = {
      stdout: result.stdout,
      stderr: result.stderr,
      exitCode: result.exitCode,
      cwd: session.cwd,
    };
    if (result.storeUnavailable) {
      const { message: text, store, reason } = result.storeUnavailable;
      reply.storeUnavailable = { message: text, store, reason };
    }
    send({ type: "result", commandId: message.commandId, reply });
  } catch (error) {
    send({ type: "failed", commandId: message.commandId, error: serializeError(error) });
  } finally {
    running.delete(message.commandId);
  }
}

async function main(): Promise<void> {
  let store: DocStore;
  let cache: TreeCache;
  try {
    const server = start.recipe.kind === "chroma" ? followedServer(start.recipe.url) : undefined;
    store = await openStoreFromRecipe(start.recipe, server);
    cache = new TreeCache(store, start.pageCacheBytes);
    await cache.fullTree(); // a store that can't give its tree fails the pool's start, not a command
  } catch (error) {
    send({ type: "start-failed", error: serializeError(error) });
    return;
  }
  port.on("message", (message: HostMessage) => {
    switch (message.type) {
      case "open": {
        const opening = openDocsSession({ store, treeCache: cache, groups: message.groups, yieldPoint });
        sessions.set(message.sessionId, opening);
        opening.then(
          () => send({ type: "opened", sessionId: message.sessionId }),
          (error) => {
            sessions.delete(message.sessionId);
            send({ type: "open-failed", sessionId: message.sessionId, error: serializeError(error) });
          },
        );
        return;
      }
      case "exec": {
        const session = sessions.get(message.sessionId);
        if (!session) {
          const error = new Error(`docs session ${message.sessionId} is not open on this worker`);
          send({ type: "failed", commandId: message.commandId, error: serializeError(error) });
          return;
        }
        void session.then(
          (opened) => exec(opened, message),
          (error) => send({ type: "failed", commandId: message.commandId, error: serializeError(error) }),
        );
        return;
      }
      case "cancel":
        running.get(message.commandId)?.abort();
        return;
      case "close": {
        const session = sessions.get(message.sessionId);
        sessions.delete(message.sessionId);
        void session?.then((opened) => opened.close()).catch(() => {});
        return;
      }
      case "server-url": {
        const answer = serverAnswers.get(message.requestId);
        serverAnswers.delete(message.requestId);
        answer?.(message.url);
        return;
      }
    }
  });
  send({ type: "ready" });
}

await main();
