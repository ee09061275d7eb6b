// Approvals over HTTP, with real parts: the docs library (embedded Chroma on a one-page corpus),
// the palace on SQLite as the assistant's memory with `approvals: "memory-writes"`, QuickJS, and
// the scripted docs model, which files "Remember that …" with remember and kg_add. Each question's
// stream announces the waiting call; POST /api/approvals/:id answers it, checked strictly: an
// unknown id (404), a bad body (400), another question's run token (403), a second answer (409).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Assistant, createAssistant } from "../assistant/create-assistant.js";
import { type DocsLibrary, openDocsLibrary } from "../docs/docs-library.js";
import { resolveDemoLimits } from "../limits.js";
import { openPalaceMemory, type PalaceMemory } from "../memory/palace-memory.js";
import { scriptedDocsModel } from "../models/scripted-docs-model.js";
import { inProcessExecutorChoices } from "./executor-choices.js";
import { startWebServer, type WebServer } from "./web-server.js";

const STATEMENT = "Remember that my project is hosted on GitLab.";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type WireEvent = { type: string; [key: string]: unknown };

/** One question's SSE stream, read as it arrives: `until(type)` waits for the next event of a type. */
function openStream(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const seen: WireEvent[] = [];
  let buffer = "";
  let read = 0;
  async function until(type: string): Promise<WireEvent> {
    for (;;) {
      while (read < seen.length) {
        const event = seen[read++]!;
        if (event.type === type) return event;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before a ${type} event; it sent ${JSON.stringify(seen)}`);
      buffer += value;
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      for (const line of lines) if (line.startsWith("data: ")) seen.push(JSON.parse(line.slice(6)));
    }
  }
  return { until, seen, cancel: () => reader.cancel() };
}

describe("approvals in the web server", () => {
  let dir: string;
  let docs: DocsLibrary;
  let memory: PalaceMemory;
  let assistant: Assistant;
  const servers: WebServer[] = [];
  const start = async (limits: Parameters<typeof resolveDemoLimits>[0] = {}) => {
    const server = await startWebServer({
      assistant,
      memory,
      user: { id: "alice", groups: [] },
      models: [{ id: "scripted", label: "Scripted docs model", scripted: true, model: scriptedDocsModel() }],
      executors: inProcessExecutorChoices(),
      limits: resolveDemoLimits(limits),
    });
    servers.push(server);
    return server;
  };
  const ask = async (server: WebServer, question = STATEMENT) => {
    const form = new FormData();
    form.append("question", question);
    const response = await fetch(`${server.url}api/ask`, { method: "POST", body: form });
    expect(response.status).toBe(200);
    const stream = openStream(response);
    const run = String((await stream.until("received")).run);
    return { stream, run };
  };
  const answer = (server: WebServer, id: string, body: unknown, type = "application/json") =>
    fetch(`${server.url}api/approvals/${encodeURIComponent(id)}`, {
      method: "POST",
      headers: { "Content-Type": type },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "atrium-demo-approvals-"));
    // The questions here only file memories: one page is docs enough.
    const corpusDir = join(dir, "docs");
    mkdirSync(corpusDir);
    writeFileSync(join(corpusDir, "index.mdx"), "# Welcome\n\nThe docs of the zebracorn project.\n");
    docs = await openDocsLibrary({ corpusDir, dataDir: join(dir, "data"), collection: "docs" });
    memory = await openPalaceMemory({ dir: join(dir, "palace"), chromaUrl: docs.chromaUrl });
    assistant = await createAssistant({
      docs,
      memory,
      model: scriptedDocsModel(),
      approvals: "memory-writes",
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.allSettled(servers.map((server) => server.close()));
    await Promise.allSettled(inProcessExecutorChoices().map((choice) => choice.shutdown?.()));
    await assistant?.close();
    await docs?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("announces the waiting call on the question's stream, takes one answer, and refuses a second (409)", async () => {
    const server = await start();
    const config = (await (await fetch(`${server.url}api/config`)).json()) as Record<string, unknown>;
    expect([config.approvals, config.approvalTimeoutMs]).toEqual(["memory-writes", 120_000]);
    const { stream, run } = await ask(server);
    expect(run).toMatch(UUID);
    const requested = await stream.until("approval-requested");
    const id = String(requested.approval);
    expect(id).toMatch(UUID);
    // The tool call's id, numbered per sandbox run: the same in another question, hence `approval`.
    expect(requested).toEqual({
      type: "approval-requested",
      step: 1,
      id: expect.stringMatching(/^call_\d+_1$/),
      name: "remember",
      input: '{"content":"My project is hosted on GitLab."}',
      approval: id,
    });
    const approved = await answer(server, id, { run, approved: true });
    expect([approved.status, await approved.json()]).toEqual([200, { id, approved: true }]);
    const again = await answer(server, id, { run, approved: false });
    expect([again.status, await again.json()]).toEqual([
      409,
      { error: `approval "${id}" was already settled (approved); nothing more to answer` },
    ]);
    expect(await stream.until("approval-resolved")).toEqual({
      type: "approval-resolved",
      step: 1,
      id: requested.id,
      name: "remember",
      approved: true,
    });
    // The fact taken from it is a memory write too: it asks in turn.
    const fact = await stream.until("approval-requested");
    expect(fact.name).toBe("kg_add");
    expect((await answer(server, String(fact.approval), { run, approved: true })).status).toBe(200);
    expect((await stream.until("answer")).answer).toBe(
      'Noted: I will remember "My project is hosted on GitLab.".',
    );
    const kept = await memory.drawers({ id: "alice", groups: [] }, { room: "memories" });
    expect(kept.map((drawer) => drawer.content)).toContain("My project is hosted on GitLab.");
  }, 60_000);

  it("refuses an unknown id (404), a bad body (400, 415) and another question's run token (403)", async () => {
    const server = await start();
    const first = await ask(server);
    const second = await ask(server);
    const firstId = String((await first.stream.until("approval-requested")).approval);
    const secondId = String((await second.stream.until("approval-requested")).approval);

    const unknown = await answer(server, "no-such-approval", { run: first.run, approved: true });
    expect([unknown.status, await unknown.json()]).toEqual([
      404,
      {
        error:
          'no approval "no-such-approval" is waiting: its question has ended, or the id is wrong; ask again',
      },
    ]);
    const bad = async (body: unknown, type?: string) => {
      const response = await answer(server, firstId, body, type);
      return [response.status, ((await response.json()) as { error: string }).error];
    };
    const shape = "the answer must be { run, approved: true } or { run, approved: false, reason? }";
    expect(await bad({ run: first.run, approved: "yes" })).toEqual([
      400,
      `${shape}: approved must be true or false`,
    ]);
    expect(await bad({ approved: true })).toEqual([
      400,
      `${shape}: run must be the run token of the question's stream (its received event)`,
    ]);
    expect(await bad({ run: first.run, approved: true, reason: "fine" })).toEqual([
      400,
      `${shape}: unknown field reason`,
    ]);
    expect(await bad({ run: first.run, approved: false, reason: "x".repeat(501) })).toEqual([
      400,
      `${shape}: reason is longer than 500 characters; shorten it`,
    ]);
    expect(await bad("{ approved: true", "application/json")).toEqual([
      400,
      expect.stringMatching(/^the answer is not JSON: /),
    ]);
    expect(await bad("approved=true", "application/x-www-form-urlencoded")).toEqual([
      415,
      "send the answer as application/json, not application/x-www-form-urlencoded",
    ]);

    // The second question's page holds its own token: it cannot answer the first one's call.
    const crossed = await answer(server, firstId, { run: second.run, approved: true });
    expect([crossed.status, await crossed.json()]).toEqual([
      403,
      {
        error: `approval "${firstId}" belongs to another question's run; only the page that asked can answer it`,
      },
    ]);

    // None of that settled anything: each page now denies its own call, and its code sees why.
    const denied = await answer(server, firstId, {
      run: first.run,
      approved: false,
      reason: " keep it private ",
    });
    expect([denied.status, await denied.json()]).toEqual([
      200,
      { id: firstId, approved: false, reason: "keep it private" },
    ]);
    expect((await answer(server, secondId, { run: second.run, approved: false })).status).toBe(200);
    expect(await first.stream.until("approval-resolved")).toMatchObject({
      approved: false,
      reason: "keep it private",
    });
    expect((await first.stream.until("answer")).answer).toBe(
      'I did not file that in memory: Tool "remember" was not approved: keep it private',
    );
    expect((await second.stream.until("answer")).answer).toBe(
      'I did not file that in memory: Tool "remember" was not approved',
    );
  }, 60_000);

  it("refuses a call nobody answers after approvalTimeoutMs, while the idle limit waits; a late answer gets 409", async () => {
    // The idle limit is shorter than the wait: a person deciding must not count as a stall.
    const server = await start({ approvalTimeoutMs: 4_000, webSseIdleTimeoutMs: 1_500 });
    const { stream, run } = await ask(server);
    const requested = await stream.until("approval-requested");
    const id = String(requested.approval);
    const reason = "no answer came within 4000 ms (approvalTimeoutMs)";
    expect(await stream.until("approval-resolved")).toEqual({
      type: "approval-resolved",
      step: 1,
      id: requested.id,
      name: "remember",
      approved: false,
      reason,
    });
    const late = await answer(server, id, { run, approved: true });
    expect([late.status, await late.json()]).toEqual([
      409,
      {
        error: `approval "${id}" was already settled (it stopped waiting: ${reason}); nothing more to answer`,
      },
    ]);
    expect((await stream.until("answer")).answer).toBe(
      `I did not file that in memory: Tool "remember" was not approved: ${reason}`,
    );
  }, 60_000);

  it("forgets a closed page's waiting call: its id is then unknown (404)", async () => {
    const server = await start();
    const { stream, run } = await ask(server);
    const id = String((await stream.until("approval-requested")).approval);
    await stream.cancel();
    const deadline = Date.now() + 10_000;
    let status = 0;
    do {
      status = (await answer(server, id, { run, approved: true })).status;
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 50));
    } while (status !== 404 && Date.now() < deadline);
    expect(status).toBe(404);
  }, 60_000);

  it("refuses memory writes where nobody can be asked (the command line), saying where to approve them", async () => {
    let last: { type: string; answer?: string } | undefined;
    for await (const event of assistant.ask(STATEMENT, { user: { id: "bob", groups: [] } })) last = event;
    expect(last?.answer).toBe(
      'I did not file that in memory: Tool "remember" was not approved: memory writes need approval (--approve memory-writes) and the command line cannot ask; approve them in the web UI (--web), or leave out --approve',
    );
  }, 60_000);
});
