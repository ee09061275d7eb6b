import { AbortError, errorMessage, rethrowIfFatal, serializeError } from "@atrium/spec";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import type { AssistantEvent } from "../assistant/assistant-events.js";
import type { Assistant } from "../assistant/create-assistant.js";
import type { AssistantMemory } from "../assistant/memory-seam.js";
import type { DocsUser } from "../docs/docs-library.js";
import type { DemoLimits } from "../limits.js";
import { readApprovalAnswer } from "./approval-answer.js";
import type { ApprovalDesk } from "./approval-desk.js";
import { isRequestProblem, readAskRequest } from "./ask-request.js";
import type { AskSlots } from "./ask-slots.js";
import type { ExecutorChoice, UnavailableExecutor } from "./executor-choice.js";
import { executorInfo } from "./executor-choices.js";
import type { ModelChoice } from "./model-choices.js";
import type { StaticAsset } from "./static-assets.js";
import { toWireEvent, type WireEvent } from "./wire-events.js";

export interface WebAppOptions {
  assistant: Assistant;
  /** The assistant's memory, for the memory panel; without one the page has no panel. */
  memory?: AssistantMemory;
  /** Who asks: fixed when the server starts (`--user`, `--groups`), never chosen by the page. */
  user: DocsUser;
  models: readonly ModelChoice[];
  executors: readonly ExecutorChoice[];
  /** Executors this host cannot run, with the reason (the switch's tooltip). */
  unavailableExecutors?: readonly UnavailableExecutor[];
  limits: Readonly<DemoLimits>;
  assets: ReadonlyMap<string, StaticAsset>;
  slots: AskSlots;
  /** The calls waiting for the page's Approve or Deny, per question's run. */
  approvals: ApprovalDesk;
  /** Aborted when the server stops: every ask in flight ends. */
  signal: AbortSignal;
  /** `host:port` values a request's Host header may carry (loopback servers), or undefined for any. */
  allowedHosts: () => readonly string[] | undefined;
}

// Same-origin only: the page loads nothing from elsewhere, and a page it renders cannot run script.
const SECURITY_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

// A comment line keeps proxies and the browser from treating a long model call as a dead stream.
const HEARTBEAT_MS = 15_000;
const IDLE = Symbol("idle");
// An answer is a run token, a yes or no and a short reason.
const MAX_APPROVAL_BODY_BYTES = 4096;

/** The web UI's routes: the page's files, its configuration, and `POST /api/ask` streaming SSE. */
export function createWebApp(options: WebAppOptions): Hono {
  const { assistant, memory, user, models, executors, limits, assets, slots, approvals } = options;
  const app = new Hono();

  app.use(async (c, next) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
    // DNS rebinding: another site's name resolving to 127.0.0.1 must not reach a loopback server.
    const allowed = options.allowedHosts();
    const host = c.req.header("host") ?? "";
    if (allowed && !allowed.includes(host)) {
      return c.json({ error: `unknown Host ${JSON.stringify(host)}; open the URL the demo printed` }, 421);
    }
    // Another site's page may POST a form here; a browser always says where it came from.
    const origin = c.req.header("origin");
    if (c.req.method !== "GET" && origin !== undefined && origin !== `http://${host}`) {
      return c.json({ error: `requests from ${origin} are refused; use the demo's own page` }, 403);
    }
    await next();
  });

  app.get("/", (c) => serveAsset(c, "index.html"));
  app.get("/api/config", (c) =>
    c.json({
      user,
      models: models.map(({ id, label, scripted, languages }) => ({ id, label, scripted, languages })),
      executors: executors.map(executorInfo),
      unavailableExecutors: options.unavailableExecutors ?? [],
      tools: assistant.toolNames,
      memory: memory !== undefined,
      approvals: assistant.approvals,
      approvalTimeoutMs: limits.approvalTimeoutMs,
      limits: {
        maxQuestionChars: limits.maxQuestionChars,
        maxImages: limits.maxWebImages,
        maxImageBytes: limits.maxWebImageBytes,
        imageTypes: ["image/png", "image/jpeg", "image/gif", "image/webp"],
      },
    }),
  );

  app.post(
    "/api/ask",
    bodyLimit({
      maxSize: limits.maxWebBodyBytes,
      onError: (c) =>
        c.json(
          {
            error: `the request is over ${limits.maxWebBodyBytes} bytes (maxWebBodyBytes); attach smaller or fewer images`,
          },
          413,
        ),
    }),
    async (c) => {
      const type = c.req.header("content-type") ?? "";
      if (!type.startsWith("multipart/form-data")) {
        return c.json(
          {
            error: `send the question as multipart/form-data (the page's form), not ${type || "an untyped body"}`,
          },
          415,
        );
      }
      let form: FormData;
      try {
        form = await c.req.formData();
      } catch (error) {
        rethrowIfFatal(error);
        return c.json({ error: `the request is not a multipart form: ${errorMessage(error)}` }, 400);
      }
      const request = await readAskRequest(form, limits);
      if (isRequestProblem(request)) return c.json({ error: request.message }, request.status);
      const executor = request.executor ? executors.find((e) => e.id === request.executor) : executors[0];
      if (!executor) {
        const missing = options.unavailableExecutors?.find((e) => e.id === request.executor);
        return c.json(
          {
            error: `${missing ? `${missing.label} is ${missing.reason}` : `no executor "${request.executor}"`}; pick one of ${executors.map((e) => e.id).join(", ")}`,
          },
          400,
        );
      }
      const model = request.model ? models.find((m) => m.id === request.model) : models[0];
      if (!model) {
        return c.json(
          { error: `no model "${request.model}"; pick one of ${models.map((m) => m.id).join(", ")}` },
          400,
        );
      }

      const language = executor.factory.capabilities.language;
      if (model.languages && !model.languages.includes(language)) {
        const fits = executors.filter((e) => model.languages?.includes(e.factory.capabilities.language));
        return c.json(
          {
            error: `${model.label} writes ${model.languages.join(" and ")} only, and ${executor.label} runs ${language}; pick ${fits.map((e) => e.label).join(" or ") || "another executor"}, or set ATRIUM_MODEL for a model that writes ${language}`,
          },
          400,
        );
      }

      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      if (!slots.tryRun(() => finished)) {
        return c.json(
          {
            error: `${limits.maxConcurrentAsks} questions are being answered (maxConcurrentAsks); ask again when one has finished`,
          },
          429,
        );
      }
      return streamSSE(c, async (stream) => {
        const controller = new AbortController();
        stream.onAbort(() => controller.abort(new AbortError("the page closed the stream")));
        const signal = AbortSignal.any([controller.signal, options.signal, c.req.raw.signal]);
        const heartbeat = setInterval(() => void stream.write(": keep-alive\n\n"), HEARTBEAT_MS);
        const desk = approvals.open();
        let id = 0;
        const send = (event: WireEvent) =>
          stream.writeSSE({ event: "assistant", id: String(id++), data: JSON.stringify(event) });
        const events = assistant.ask(request.question, {
          user,
          signal,
          images: request.images,
          executor: executor.factory,
          model: model.model,
          onApproval: desk.handler,
          // The wait the page announces is the one the run keeps.
          approvalTimeoutMs: limits.approvalTimeoutMs,
        });
        try {
          // What the server took from the request, first: the page shows what really arrived.
          await send({
            type: "received",
            // The page answers this run's approvals with it: no other page has seen it.
            run: desk.token,
            executor: executor.id,
            model: model.id,
            images: request.imageSummaries,
          });
          let pending = events.next();
          for (;;) {
            const next = await orIdle(pending, limits.webSseIdleTimeoutMs);
            // A person deciding is no stalled run: the approval's own limit ends that wait.
            if (next === IDLE && desk.waiting > 0) continue;
            if (next === IDLE) {
              controller.abort(new AbortError("idle"));
              await send({
                type: "error",
                error: {
                  ...serializeError(new AbortError("idle")),
                  message: `no progress for ${limits.webSseIdleTimeoutMs / 1000} s (webSseIdleTimeoutMs); the question was stopped`,
                },
              });
              break;
            }
            if (next.done) break;
            const wire = toWireEvent(next.value, limits.maxTraceOutputChars);
            if (wire.type === "approval-requested") wire.approval = desk.approvalIdOf(String(wire.id));
            await send(wire);
            pending = events.next();
          }
        } catch (error) {
          // Thrown before the run started (a refused question) or fatal (aborted): the page shows it.
          if (!stream.aborted) await send({ type: "error", error: serializeError(error) });
        } finally {
          clearInterval(heartbeat);
          desk.close();
          // Ends the ask (its docs session and sandbox close) if it is still running; how it
          // ended was sent above, so a second report of the same abort is dropped.
          await events.return(undefined).catch(() => undefined);
          finish();
        }
      });
    },
  );

  app.post(
    "/api/approvals/:id",
    bodyLimit({
      maxSize: MAX_APPROVAL_BODY_BYTES,
      onError: (c) =>
        c.json({ error: `an answer has at most ${MAX_APPROVAL_BODY_BYTES} bytes; shorten the reason` }, 413),
    }),
    async (c) => {
      const type = c.req.header("content-type") ?? "";
      if (!type.startsWith("application/json")) {
        return c.json(
          { error: `send the answer as application/json, not ${type || "an untyped body"}` },
          415,
        );
      }
      let body: unknown;
      try {
        body = await c.req.json();
      } catch (error) {
        rethrowIfFatal(error);
        return c.json({ error: `the answer is not JSON: ${errorMessage(error)}` }, 400);
      }
      const answer = readApprovalAnswer(body);
      if ("problem" in answer) return c.json({ error: answer.problem }, 400);
      const outcome = approvals.answer(c.req.param("id"), answer.run, answer.decision);
      if (outcome.status !== 200) return c.json({ error: outcome.message }, outcome.status);
      const { status: _, ...result } = outcome;
      return c.json(result);
    },
  );

  if (memory) {
    // The panel reads and forgets in the server's user's wing only: the page never names a user.
    app.get("/api/memory", async (c) => c.json(await memory.overview(user)));
    app.get("/api/memory/drawers", async (c) => {
      const room = c.req.query("room");
      return c.json(await memory.drawers(user, room ? { room } : {}));
    });
    app.delete("/api/memory/:id", async (c) => {
      const id = c.req.param("id");
      const result = await memory.forget(user, id);
      if (result.forgotten === "nothing") {
        return c.json(
          { error: `nothing of ${user.id}'s memory has the id ${JSON.stringify(id)}; reload the panel` },
          404,
        );
      }
      return c.json(result);
    });
  }

  app.get("/:file", (c) => serveAsset(c, c.req.param("file")));
  app.notFound((c) => c.json({ error: `no such page: ${c.req.path}` }, 404));
  // A failure behind a route (the palace, say) reaches the page as a message, not a bare 500.
  app.onError((error, c) =>
    c.json({ error: `${c.req.method} ${c.req.path} failed: ${errorMessage(error)}` }, 500),
  );

  function serveAsset(c: Context, name: string) {
    const asset = assets.get(name);
    if (!asset) return c.json({ error: `no such file: /${name}` }, 404);
    return c.body(asset.body, 200, { "Content-Type": asset.contentType, "Cache-Control": "no-cache" });
  }

  return app;
}

/** The next event, or IDLE when none came within `ms` (the caller keeps `next` to wait on again). */
async function orIdle(
  next: Promise<IteratorResult<AssistantEvent, void>>,
  ms: number,
): Promise<IteratorResult<AssistantEvent, void> | typeof IDLE> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<typeof IDLE>((resolve) => {
    timer = setTimeout(() => resolve(IDLE), ms);
  });
  try {
    return await Promise.race([next, idle]);
  } finally {
    clearTimeout(timer);
  }
}
