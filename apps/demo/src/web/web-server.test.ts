// The web server over HTTP, with a real docs library (embedded Chroma on a two-page corpus) and
// real QuickJS: what the page is refused and why, the limits (body, concurrent asks, idle stream),
// and that closing the server ends the asks in flight. A model that never answers (a scripted
// stand-in: the model is the one part that cannot be real here) keeps an ask open on purpose.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModel } from "@atrium/agent";
import type { Message, Model } from "@atrium/spec";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Assistant, createAssistant } from "../assistant/create-assistant.js";
import { type DocsLibrary, openDocsLibrary } from "../docs/docs-library.js";
import { resolveDemoLimits } from "../limits.js";
import { scriptedDocsModel } from "../models/scripted-docs-model.js";
import type { UnavailableExecutor } from "./executor-choice.js";
import { inProcessExecutorChoices } from "./executor-choices.js";
import type { ModelChoice } from "./model-choices.js";
import { startWebServer, type WebServer } from "./web-server.js";

/** Waits, as a slow model would, until the question is stopped. */
const silentModel: Model = {
  id: "silent",
  generate: (_messages, options) => untilAborted(options?.signal),
  stream: (_messages, options) => ({
    [Symbol.asyncIterator]: () => ({ next: () => untilAborted(options?.signal) }),
  }),
};

/**
 * Writes Python, for the Python executor: greps the docs, reads the first page the grep printed
 * (taken from the observation it is shown), and answers with that page's first paragraph.
 */
const pythonModel = new ScriptedModel(
  (messages: Message[], _options, call) => {
    if (call === 0)
      return 'Thought: grep first.\n```py\nfound = bash(command="grep -rl zebracorn /")\nprint(found["stdout"])\n```';
    const last = messages.at(-1)?.content;
    const seen =
      typeof last === "string"
        ? last
        : (last ?? []).map((part) => ("text" in part ? part.text : "")).join("");
    const path = /^\/\S+\.mdx$/m.exec(seen)?.[0] ?? "/missing.mdx";
    return `Thought: read it.\n\`\`\`py\npage = bash(command="cat '${path}'")\nfinal_answer({"answer": page["stdout"].split("\\n\\n")[1].strip(), "sources": ["${path}"]})\n\`\`\``;
  },
  { id: "python-scripted" },
);

function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

const MODELS: ModelChoice[] = [
  { id: "scripted", label: "Scripted docs model", scripted: true, model: scriptedDocsModel() },
  { id: "silent", label: "Silent", scripted: true, model: silentModel },
  {
    id: "python-scripted",
    label: "Python scripted",
    scripted: true,
    model: pythonModel,
    languages: ["python"],
  },
];

function askForm(fields: Record<string, string>, images: { name: string; bytes: Uint8Array }[] = []) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const image of images) form.append("images", new File([image.bytes], image.name));
  return form;
}

/** The SSE stream's events (`data:` lines parsed), until it ends. */
async function sseEvents(response: Response): Promise<{ type: string; [key: string]: unknown }[]> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

/** A raw request, for headers fetch would not send as given (Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject).end();
  });
}

describe("the web server", () => {
  let dir: string;
  let docs: DocsLibrary;
  let assistant: Assistant;
  const servers: WebServer[] = [];
  const start = async (
    limits: Parameters<typeof resolveDemoLimits>[0] = {},
    unavailableExecutors: UnavailableExecutor[] = [],
  ) => {
    const server = await startWebServer({
      assistant,
      unavailableExecutors,
      user: { id: "alice", groups: [] },
      models: MODELS,
      executors: inProcessExecutorChoices(),
      limits: resolveDemoLimits(limits),
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "atrium-demo-web-"));
    mkdirSync(join(dir, "docs", "guides"), { recursive: true });
    writeFileSync(join(dir, "docs", "index.mdx"), "# Welcome\n\nThe docs of the zebracorn project.\n");
    writeFileSync(
      join(dir, "docs", "guides", "install.mdx"),
      "# Install\n\nInstall the zebracorn with npm install zebracorn. It needs Node 20.\n",
    );
    docs = await openDocsLibrary({
      corpusDir: join(dir, "docs"),
      dataDir: join(dir, "data"),
      collection: "docs",
    });
    assistant = await createAssistant({ docs, model: scriptedDocsModel() });
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(servers.map((server) => server.close()));
    await Promise.allSettled(inProcessExecutorChoices().map((choice) => choice.shutdown?.()));
    await assistant?.close();
    await docs?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the page and its configuration on loopback", async () => {
    const server = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'; script-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="/app.js"></script>');
    expect((await fetch(`${server.url}app.js`)).headers.get("content-type")).toBe(
      "text/javascript; charset=utf-8",
    );
    expect(await (await fetch(`${server.url}api/config`)).json()).toEqual({
      user: { id: "alice", groups: [] },
      models: [
        { id: "scripted", label: "Scripted docs model", scripted: true },
        { id: "silent", label: "Silent", scripted: true },
        { id: "python-scripted", label: "Python scripted", scripted: true, languages: ["python"] },
      ],
      executors: [
        {
          id: "quickjs",
          label: "QuickJS (JavaScript)",
          language: "javascript",
          isolation: "worker",
          network: "none",
        },
        {
          id: "python",
          label: "Pyodide (Python)",
          language: "python",
          isolation: "process",
          network: "none",
        },
      ],
      unavailableExecutors: [],
      tools: ["bash", "search"],
      memory: false,
      approvals: "off",
      approvalTimeoutMs: 120_000,
      limits: {
        maxQuestionChars: 2000,
        maxImages: 2,
        maxImageBytes: 5 * 1024 * 1024,
        imageTypes: ["image/png", "image/jpeg", "image/gif", "image/webp"],
      },
    });
    const missing = await fetch(`${server.url}package.json`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "no such file: /package.json" });
    // No memory: no memory routes.
    expect((await fetch(`${server.url}api/memory`)).status).toBe(404);
  });

  it("answers a question as a stream of events that ends with the answer", async () => {
    const server = await start();
    const response = await fetch(`${server.url}api/ask`, {
      method: "POST",
      body: askForm({ question: "How do I install the zebracorn?" }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = await sseEvents(response);
    expect(events.slice(0, 2)).toEqual([
      {
        type: "received",
        run: expect.stringMatching(/^[0-9a-f-]{36}$/),
        executor: "quickjs",
        model: "scripted",
        images: [],
      },
      {
        type: "question",
        question: "How do I install the zebracorn?",
        user: "alice",
        model: "scripted-docs",
      },
    ]);
    const answer = events.at(-1)!;
    expect(answer).toMatchObject({
      type: "answer",
      state: "success",
      citations: [
        { path: "/guides/install.mdx", verified: true },
        { path: "/index.mdx", verified: true },
      ],
    });
    expect(events.map((e) => e.type)).toContain("docs-command");
  }, 30_000);

  it("refuses other sites' pages and names, and requests it cannot use, saying why", async () => {
    const server = await start({ maxWebBodyBytes: 2_000 });
    const rebound = await rawGet(server.url, { host: `evil.example:${server.port}` });
    expect(rebound).toEqual({
      status: 421,
      body: JSON.stringify({
        error: `unknown Host "evil.example:${server.port}"; open the URL the demo printed`,
      }),
    });
    expect((await rawGet(server.url, { host: `localhost:${server.port}` })).status).toBe(200);
    const foreign = await fetch(`${server.url}api/ask`, {
      method: "POST",
      headers: { origin: "http://evil.example" },
      body: askForm({ question: "x" }),
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({
      error: "requests from http://evil.example are refused; use the demo's own page",
    });

    const post = async (form: FormData | string) => {
      const response = await fetch(`${server.url}api/ask`, { method: "POST", body: form });
      return { status: response.status, body: await response.json() };
    };
    expect(
      await post(askForm({ question: "x" }, [{ name: "big.png", bytes: new Uint8Array(3_000) }])),
    ).toEqual({
      status: 413,
      body: { error: "the request is over 2000 bytes (maxWebBodyBytes); attach smaller or fewer images" },
    });
    expect(await post("question=x")).toEqual({
      status: 415,
      body: {
        error: "send the question as multipart/form-data (the page's form), not text/plain;charset=UTF-8",
      },
    });
    expect(await post(askForm({ question: "x", executor: "microvm" }))).toEqual({
      status: 400,
      body: { error: 'no executor "microvm"; pick one of quickjs, python' },
    });
    const noQemu = await start({}, [
      {
        id: "microvm",
        label: "Python in a micro-VM (QEMU)",
        reason: "not available on this host: QEMU is missing (sudo apt-get install -y qemu-system-x86)",
      },
    ]);
    expect(
      ((await (await fetch(`${noQemu.url}api/config`)).json()) as { unavailableExecutors: unknown })
        .unavailableExecutors,
    ).toEqual([
      {
        id: "microvm",
        label: "Python in a micro-VM (QEMU)",
        reason: "not available on this host: QEMU is missing (sudo apt-get install -y qemu-system-x86)",
      },
    ]);
    const refused = await fetch(`${noQemu.url}api/ask`, {
      method: "POST",
      body: askForm({ question: "x", executor: "microvm" }),
    });
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 400,
      body: {
        error:
          "Python in a micro-VM (QEMU) is not available on this host: QEMU is missing (sudo apt-get install -y qemu-system-x86); pick one of quickjs, python",
      },
    });
    expect(await post(askForm({ question: "x", model: "gpt" }))).toEqual({
      status: 400,
      body: { error: 'no model "gpt"; pick one of scripted, silent, python-scripted' },
    });
    expect(await post(askForm({ question: "x", model: "python-scripted", executor: "quickjs" }))).toEqual({
      status: 400,
      body: {
        error:
          "Python scripted writes python only, and QuickJS (JavaScript) runs javascript; pick Pyodide (Python), or set ATRIUM_MODEL for a model that writes javascript",
      },
    });
    expect(
      await post(askForm({ question: "x" }, [{ name: "a.gif", bytes: Buffer.from("GIF7, not 8") }])),
    ).toEqual({
      status: 415,
      body: { error: "a.gif is not a PNG, JPEG, GIF or WebP image; attach one of those" },
    });
  });

  it("runs a question's code where the executor switch says: Python in Pyodide", async () => {
    const server = await start();
    const response = await fetch(`${server.url}api/ask`, {
      method: "POST",
      body: askForm({
        question: "How do I install the zebracorn?",
        executor: "python",
        model: "python-scripted",
      }),
    });
    const events = await sseEvents(response);
    expect(events[0]).toEqual({
      type: "received",
      run: expect.stringMatching(/^[0-9a-f-]{36}$/),
      executor: "python",
      model: "python-scripted",
      images: [],
    });
    expect(events.filter((e) => e.type === "code").map((e) => e.language)).toEqual(["python", "python"]);
    expect(events.filter((e) => e.type === "docs-command").map((e) => e.command)).toEqual([
      "grep -rl zebracorn /",
      "cat '/guides/install.mdx'",
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "answer",
      state: "success",
      answer: "Install the zebracorn with npm install zebracorn. It needs Node 20.",
      citations: [{ path: "/guides/install.mdx", verified: true }],
    });
  }, 60_000);

  it("answers at most maxConcurrentAsks at once, and a closed page frees its slot", async () => {
    const server = await start({ maxConcurrentAsks: 1 });
    const reading = new AbortController();
    const first = await fetch(`${server.url}api/ask`, {
      method: "POST",
      body: askForm({ question: "Anything?", model: "silent" }),
      signal: reading.signal,
    });
    expect(first.status).toBe(200);
    const busy = await fetch(`${server.url}api/ask`, {
      method: "POST",
      body: askForm({ question: "And now?" }),
    });
    expect(busy.status).toBe(429);
    expect(await busy.json()).toEqual({
      error: "1 questions are being answered (maxConcurrentAsks); ask again when one has finished",
    });
    // The page goes away: the server stops that question and takes the next.
    reading.abort();
    const deadline = Date.now() + 10_000;
    let next: Response;
    do {
      next = await fetch(`${server.url}api/ask`, {
        method: "POST",
        body: askForm({ question: "How do I install the zebracorn?" }),
      });
      if (next.status === 429) await new Promise((resolve) => setTimeout(resolve, 50));
    } while (next.status === 429 && Date.now() < deadline);
    expect(next.status).toBe(200);
    expect((await sseEvents(next)).at(-1)).toMatchObject({ type: "answer", state: "success" });
  }, 30_000);

  it("stops a question whose stream had no event for webSseIdleTimeoutMs, and says so", async () => {
    const server = await start({ webSseIdleTimeoutMs: 400 });
    const response = await fetch(`${server.url}api/ask`, {
      method: "POST",
      body: askForm({ question: "Anything?", model: "silent" }),
    });
    const events = await sseEvents(response);
    expect(events.map((e) => e.type)).toEqual(["received", "question", "run-start", "step-start", "error"]);
    expect(events.at(-1)).toMatchObject({
      error: {
        code: "ABORTED",
        message: "no progress for 0.4 s (webSseIdleTimeoutMs); the question was stopped",
      },
    });
  }, 30_000);

  it("close ends the questions in flight and stops listening", async () => {
    const server = await start();
    const response = await fetch(`${server.url}api/ask`, {
      method: "POST",
      body: askForm({ question: "Anything?", model: "silent" }),
    });
    const reader = response.body!.getReader();
    await reader.read(); // the stream has started
    const began = performance.now();
    await server.close();
    expect(performance.now() - began).toBeLessThan(5_000);
    // The stream ends (or breaks off) instead of hanging.
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return "ended";
      })().catch(() => "broken off"),
    ).resolves.toMatch(/^(ended|broken off)$/);
    await expect(fetch(server.url)).rejects.toThrow();
  }, 30_000);
});
