import type { Assistant } from "../assistant/create-assistant.js";
import type { AssistantMemory } from "../assistant/memory-seam.js";
import type { DocsUser } from "../docs/docs-library.js";
import { type DemoLimits, resolveDemoLimits } from "../limits.js";
import type { DemoModel } from "../models/resolve-demo-model.js";
import type { ExecutorChoices } from "./executor-choices.js";
import { modelChoices } from "./model-choices.js";
import { startWebServer } from "./web-server.js";

export interface ServeWebOptions {
  assistant: Assistant;
  /** The executor switch's choices; the caller shuts them down after this returns. */
  executors: ExecutorChoices;
  /** The memory the assistant was given, for the page's memory panel (absent: no panel). */
  memory?: AssistantMemory;
  user: DocsUser;
  chosen: DemoModel;
  host?: string;
  port?: number;
  limits?: Partial<DemoLimits>;
  say: (text: string) => void;
  /** Ctrl-C: the server stops, asks in flight end, and this returns. */
  signal: AbortSignal;
}

/** `npm run demo -- --web`: serves the page until the signal, then stops everything it started. */
export async function serveWebUntilStopped(options: ServeWebOptions): Promise<void> {
  const limits = resolveDemoLimits(options.limits);
  const { user, say, signal } = options;
  await using server = await startWebServer({
    assistant: options.assistant,
    memory: options.memory,
    user,
    models: modelChoices(options.chosen, limits),
    executors: options.executors.offered,
    unavailableExecutors: options.executors.unavailable,
    limits,
    host: options.host,
    port: options.port,
  });
  const loopback = ["127.0.0.1", "localhost", "::1"].includes(options.host ?? "127.0.0.1");
  say(
    `Web UI: ${server.url}  (asking as ${user.id}${user.groups?.length ? `, groups ${user.groups.join(",")}` : ""}; Ctrl-C stops it)\n`,
  );
  if (!loopback) {
    say(
      `Warning: listening on ${options.host}: the web UI has no login, so anyone who reaches this address asks as ${user.id}.\n`,
    );
  }
  await new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
  say("Stopping the web UI…\n");
}
