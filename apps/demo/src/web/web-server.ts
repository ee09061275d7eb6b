import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Assistant } from "../assistant/create-assistant.js";
import type { AssistantMemory } from "../assistant/memory-seam.js";
import type { DocsUser } from "../docs/docs-library.js";
import type { DemoLimits } from "../limits.js";
import { ApprovalDesk } from "./approval-desk.js";
import { AskSlots } from "./ask-slots.js";
import type { ExecutorChoice, UnavailableExecutor } from "./executor-choice.js";
import type { ModelChoice } from "./model-choices.js";
import { loadStaticAssets } from "./static-assets.js";
import { createWebApp } from "./web-app.js";

export interface WebServerOptions {
  assistant: Assistant;
  /** The assistant's memory: the page shows its panel (wings, rooms, drawers, facts, forget). */
  memory?: AssistantMemory;
  user: DocsUser;
  models: readonly ModelChoice[];
  executors: readonly ExecutorChoice[];
  /** Executors this host cannot run: the page's switch says why in its tooltip. */
  unavailableExecutors?: readonly UnavailableExecutor[];
  limits: Readonly<DemoLimits>;
  /** Default 127.0.0.1: the demo has no login, so it listens on loopback unless told otherwise. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
}

export interface WebServer {
  /** Where the page is, e.g. `http://127.0.0.1:41234/`. */
  readonly url: string;
  readonly port: number;
  /** Stops listening, ends every ask in flight and waits for them (sandboxes and sessions closed). */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

/** Serves the web UI (Hono on Node's HTTP server) until `close`. */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const host = options.host ?? "127.0.0.1";
  const stopping = new AbortController();
  const slots = new AskSlots(options.limits.maxConcurrentAsks);
  let port = 0;
  const app = createWebApp({
    ...options,
    assets: loadStaticAssets(),
    slots,
    approvals: new ApprovalDesk(),
    signal: stopping.signal,
    // On loopback, only the names of loopback: a rebound DNS name of another site is refused.
    allowedHosts: () =>
      LOOPBACK.has(host) ? [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] : undefined,
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: host, port: options.port ?? 0 }, () =>
      resolve(started),
    );
    started.once("error", reject);
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  const web: WebServer = {
    url: `http://${shownHost}:${port}/`,
    port,
    close() {
      closed ??= (async () => {
        stopping.abort();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        // Open SSE streams would hold `close` forever; the asks behind them were just aborted.
        if ("closeAllConnections" in server) server.closeAllConnections();
        await Promise.all([stopped, slots.drain()]);
      })();
      return closed;
    },
    [Symbol.asyncDispose]() {
      return web.close();
    },
  };
  return web;
}
