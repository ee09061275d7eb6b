// Suite (2) of issue 14: memory across sessions through the palace. Real Chroma, real palace
// files (SQLite + vectors), real QuickJS, the scripted docs model. Session 1 states a preference
// and a project fact; each later session is a new docs library, palace and assistant on the same
// directories (nothing kept in memory between them), which recalls them through the palace's
// tools, visibly in `memory-recalled` events and in the answer; the session transcripts are in
// the palace verbatim; forgetting the preference stops a third session recalling it.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AnswerEvent,
  type AssistantEvent,
  createAssistant,
  type DocsUser,
  type MemoryFiledEvent,
  type MemoryRecalledEvent,
  openDocsLibrary,
  openPalaceMemory,
  type PalaceMemory,
  palaceDirIn,
  scriptedDocsModel,
} from "../../apps/demo/src/index.ts";
import { corpusCopy, removeDirs, SOME_PAGES } from "./demo-corpus.js";

const ALICE: DocsUser = { id: "alice" };
const PREFERENCE = "I prefer TypeScript examples.";
const PROJECT = "My project is hosted on GitLab.";

interface Session {
  events: AssistantEvent[];
  answer: AnswerEvent;
  recalled: string[];
  filedByTool: string[];
  transcript: MemoryFiledEvent | undefined;
}

describe("demo assistant × palace: memory across sessions", () => {
  let docsDir: string;
  let dataDir: string;

  beforeAll(() => {
    docsDir = corpusCopy([...SOME_PAGES, "deploy/gitlab.mdx", "deploy/deployments.mdx"]);
    dataDir = mkdtempSync(join(tmpdir(), "atrium-demo-memory-"));
  });
  afterAll(() => removeDirs(docsDir, dataDir));

  /**
   * One session as a fresh start: the docs library (its Chroma server), the palace and the
   * assistant are opened for it and closed after it; `inspect` runs while the palace is open.
   */
  async function session(
    questions: string[],
    user: DocsUser = ALICE,
    inspect?: (memory: PalaceMemory) => Promise<void>,
  ): Promise<Session[]> {
    const docs = await openDocsLibrary({ corpusDir: docsDir, dataDir, collection: "docs" });
    try {
      const memory = await openPalaceMemory({ dir: palaceDirIn(dataDir), chromaUrl: docs.chromaUrl });
      await using assistant = await createAssistant({ docs, model: scriptedDocsModel(), memory });
      const sessions: Session[] = [];
      for (const question of questions) {
        const events: AssistantEvent[] = [];
        for await (const event of assistant.ask(question, { user })) events.push(event);
        const recalledEvents = events.filter((e): e is MemoryRecalledEvent => e.type === "memory-recalled");
        const filedEvents = events.filter((e): e is MemoryFiledEvent => e.type === "memory-filed");
        sessions.push({
          events,
          answer: events.at(-1) as AnswerEvent,
          recalled: recalledEvents.flatMap((e) => e.memories.map((m) => m.content)),
          filedByTool: filedEvents
            .filter((e) => e.via === "tool")
            .flatMap((e) => e.memories?.map((m) => m.content) ?? []),
          transcript: filedEvents.find((e) => e.via === "transcript"),
        });
      }
      await inspect?.(memory);
      return sessions;
    } finally {
      await docs.close();
    }
  }

  let first: Session;

  it("session 1: the agent files what the user states with remember and kg_add", async () => {
    first = (await session([`Remember that ${PREFERENCE} ${PROJECT}`]))[0]!;
    expect(first.answer.state).toBe("success");
    expect(first.answer.answer).toBe(`Noted: I will remember "${PREFERENCE}" and "${PROJECT}".`);
    expect(first.filedByTool).toEqual([
      PREFERENCE,
      "alice — prefers → TypeScript examples",
      PROJECT,
      "alice — project_is_hosted_on → GitLab",
    ]);
    // Nothing was remembered before the first session.
    expect(first.recalled).toEqual([]);
    expect(first.transcript?.ids).toHaveLength(4);
    expect(first.answer.timing.memoryMs).toBeGreaterThan(0);
  }, 120_000);

  it("session 2, a new assistant: recalls the preference and the project fact through the palace", async () => {
    const [preference, deploy] = await session([
      "What do I prefer?",
      "How do I set up automatic deployments for my project?",
    ]);
    const [otherUser] = await session(["What do I prefer?"], { id: "bob" });

    // Before the agent starts (BM25 shares "prefer"), then through the agent's recall tool.
    const recalledBefore = preference!.events.find(
      (e): e is MemoryRecalledEvent => e.type === "memory-recalled" && e.via === "question",
    );
    expect(recalledBefore?.memories.map((m) => m.content)).toEqual([PREFERENCE]);
    expect(preference!.recalled).toContain(PREFERENCE);
    expect(preference!.answer.answer).toBe(
      `You told me: "${PREFERENCE}" (Known facts: alice — prefers → TypeScript examples.)`,
    );
    expect(preference!.answer.citations).toEqual([]);

    // A docs question for "my project": the recalled fact decides what is grepped and cited.
    expect(deploy!.recalled).toContain(PROJECT);
    expect(deploy!.answer.answer.startsWith(`You told me: "${PROJECT}" `)).toBe(true);
    const commands = deploy!.events.flatMap((e) => (e.type === "docs-command" ? [e.command] : []));
    expect(commands).toContain("grep -rciE -- '(^|[^[:alnum:]])gitlab' / | grep -v ':0$'");
    expect(deploy!.answer.citations).toEqual([{ path: "/deploy/gitlab.mdx", verified: true }]);

    // Another user's wing holds nothing of alice's.
    expect(otherUser!.recalled).toEqual([]);
    expect(otherUser!.answer.answer).toBe(
      "I don't remember anything you told me about what you prefer; tell me and I will remember it.",
    );
  }, 180_000);

  it("files each session's transcript verbatim (question, each step's text, answer)", async () => {
    const steps = first.events.flatMap((e) => (e.type === "model-output" ? [e.text] : []));
    expect(steps).toHaveLength(2);
    await session([], ALICE, async (memory) => {
      const sessionId = first.transcript!.sessionId!;
      const hits = await memory.palace.search(`Remember that ${PREFERENCE} ${PROJECT}`, {
        wing: "alice",
        room: "sessions",
        k: 3,
      });
      // The question turn, word for word, among the best hits (the step that quotes it competes).
      expect(hits.find((hit) => hit.turnId === `${sessionId}:q`)?.content).toBe(
        `Remember that ${PREFERENCE} ${PROJECT}`,
      );
      const turns = (await memory.palace.list({ wing: "alice", room: "sessions", limit: 1000 })).drawers
        .filter((drawer) => drawer.sessionId === sessionId)
        .map((drawer) => [drawer.turnId, drawer.speaker, drawer.content]);
      expect(turns).toEqual([
        [`${sessionId}:q`, "alice", `Remember that ${PREFERENCE} ${PROJECT}`],
        [`${sessionId}:s1`, "assistant", steps[0]],
        [`${sessionId}:s2`, "assistant", steps[1]],
        [`${sessionId}:a`, "assistant", first.answer.answer],
      ]);
      expect(first.transcript?.ids).toEqual(
        (await memory.palace.list({ wing: "alice", room: "sessions", limit: 1000 })).drawers
          .filter((drawer) => drawer.sessionId === sessionId)
          .map((drawer) => drawer.id),
      );
    });
  }, 120_000);

  it("the panel's read API shows wings, rooms, recent drawers and facts; forget removes the preference", async () => {
    await session([], ALICE, async (memory) => {
      const overview = await memory.overview(ALICE);
      expect(overview.wing).toBe("alice");
      // Only alice's own wing: bob's exists, but a user's panel shows nothing of another's.
      expect(overview.wings.map((w) => w.wing)).toEqual(["alice"]);
      expect(overview.rooms.map((r) => r.room)).toEqual(["memories", "sessions"]);
      expect(overview.rooms[0]!.drawers).toBe(2);
      expect(overview.recent[0]?.turnId).toMatch(/:a$/);
      expect(overview.facts.map((f) => f.text).sort()).toEqual([
        "alice — prefers → TypeScript examples",
        "alice — project_is_hosted_on → GitLab",
      ]);
      const kept = await memory.drawers(ALICE, { room: "memories" });
      expect(kept.map((d) => d.content)).toEqual([PROJECT, PREFERENCE]);
      const preference = kept.find((d) => d.content === PREFERENCE)!;
      expect(await memory.forget({ id: "bob" }, preference.id)).toEqual({
        forgotten: "nothing",
        factsEnded: 0,
      });
      expect(await memory.forget(ALICE, preference.id)).toEqual({ forgotten: "drawer", factsEnded: 1 });
      expect(memory.facts(ALICE).map((f) => f.text)).toEqual(["alice — project_is_hosted_on → GitLab"]);
      expect((await memory.drawers(ALICE, { room: "memories" })).map((d) => d.content)).toEqual([PROJECT]);
    });
  }, 120_000);

  it("session 3, after forget: the preference is no longer recalled; the project fact still is", async () => {
    const [preference, project] = await session(["What do I prefer?", "Which platform does my project use?"]);
    expect(preference!.recalled.filter((text) => text.includes("TypeScript"))).toEqual([]);
    expect(preference!.answer.answer).toBe(
      "I don't remember anything you told me about what you prefer; tell me and I will remember it.",
    );
    expect(project!.recalled).toContain(PROJECT);
    expect(project!.answer.answer).toBe(
      `You told me: "${PROJECT}" (Known facts: alice — project_is_hosted_on → GitLab.)`,
    );
  }, 120_000);

  it("without a memory the scripted model says it has none", async () => {
    const docs = await openDocsLibrary({ corpusDir: docsDir, dataDir, collection: "docs" });
    try {
      await using assistant = await createAssistant({ docs, model: scriptedDocsModel() });
      const events: AssistantEvent[] = [];
      for await (const event of assistant.ask("What do I prefer?", { user: ALICE })) events.push(event);
      expect(events.some((e) => e.type === "memory-recalled" || e.type === "memory-filed")).toBe(false);
      expect((events.at(-1) as AnswerEvent).answer).toBe(
        "I have no memory in this session, so I do not know what you told me before.",
      );
      expect(assistant.memory).toBeUndefined();
      expect(assistant.toolNames).toEqual(["bash", "search"]);
    } finally {
      await docs.close();
    }
  }, 120_000);
});
