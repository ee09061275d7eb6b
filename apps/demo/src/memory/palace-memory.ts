import { join } from "node:path";
import type { LongTermMemoryOptions } from "@atrium/agent";
import {
  type Drawer,
  type FactView,
  openPalace,
  type Palace,
  PalaceMemoryStore,
  PalaceView,
  palaceTools,
} from "@atrium/palace";
import { AbortError, type Tool } from "@atrium/spec";
import type { MemoryFiledEvent, MemoryRecalledEvent } from "../assistant/assistant-events.js";
import type {
  AssistantMemory,
  ForgetResult,
  MemoryDrawerView,
  MemoryFactView,
  MemoryOverview,
  SessionTranscript,
} from "../assistant/memory-seam.js";
import { DEFAULT_DATA_DIR } from "../docs/default-locations.js";
import type { DocsUser } from "../docs/docs-library.js";
import { type DemoLimits, resolveDemoLimits } from "../limits.js";
import { memoryGuide } from "./memory-guide.js";
import { DEMO_AGENT, DEMO_SOURCE, MEMORIES_ROOM, MEMORY_TOOLS } from "./memory-rooms.js";
import { transcriptDrafts } from "./session-transcript.js";

export interface PalaceMemoryOptions {
  /** The palace directory (default `<data dir>/palace`, i.e. apps/demo/.atrium/palace). */
  dir?: string;
  /**
   * A running Chroma server for the palace's vectors (the docs library's, so the demo runs one
   * server); without it the palace starts its own on `<dir>/chroma`.
   */
  chromaUrl?: string;
  limits?: Partial<DemoLimits>;
}

/** The demo's palace directory inside a data dir. */
export function palaceDirIn(dataDir: string): string {
  return join(dataDir, "palace");
}

/** Opens (or creates) the demo's palace and wraps it as the assistant's memory. */
export async function openPalaceMemory(options: PalaceMemoryOptions = {}): Promise<PalaceMemory> {
  const limits = resolveDemoLimits(options.limits);
  const palace = await openPalace(options.dir ?? palaceDirIn(DEFAULT_DATA_DIR), {
    create: true,
    name: "atrium-demo",
    ...(options.chromaUrl === undefined ? {} : { chromaUrl: options.chromaUrl }),
  });
  return new PalaceMemory(palace, limits);
}

/**
 * The assistant's memory in a palace: one wing per user id, and each user works through a
 * `PalaceView` granted exactly that wing, so recall, the agent's tools (facts and diary
 * included), the wake-up and the memory panel see nothing of another user. What the user asks
 * to keep is filed by the agent's `remember` in the "memories" room (and facts about the user in
 * the knowledge graph of their wing, subject = the user id); each session's transcript is filed
 * verbatim in "sessions".
 */
export class PalaceMemory implements AssistantMemory {
  readonly toolNames: readonly string[];

  constructor(
    readonly palace: Palace,
    private readonly limits: Readonly<DemoLimits> = resolveDemoLimits(),
  ) {
    this.toolNames = palaceTools(palace, { only: MEMORY_TOOLS }).map((tool) => tool.name);
  }

  get dir(): string {
    return this.palace.dir;
  }

  /** The palace as `user` may see it: their own wing, read and write, nothing else. */
  viewFor(user: DocsUser): PalaceView {
    return new PalaceView(this.palace, { read: [user.id], write: [user.id] }, user.id);
  }

  /**
   * The user's palace as the agent's long-term memory: the wake-up of their wing (facts about
   * them as the user entity) and, for the question, what they asked to keep (room "memories")
   * that shares a word with it. The demo files transcripts itself, so runs are not filed again.
   */
  longTermMemory(user: DocsUser): LongTermMemoryOptions {
    const store = new PalaceMemoryStore(this.viewFor(user), {
      closePalace: false,
      wing: user.id,
      room: MEMORIES_ROOM,
      user: user.id,
      source: DEMO_SOURCE,
      recall: { room: MEMORIES_ROOM, mode: "bm25" },
    });
    return {
      store,
      recallLimit: this.limits.memoryRecallK,
      wakeUpTokens: this.limits.memoryWakeUpTokens,
      fileRuns: false,
    };
  }

  guide(user: DocsUser): string {
    return memoryGuide(user.id);
  }

  tools(user: DocsUser): readonly Tool[] {
    return palaceTools(this.viewFor(user), {
      wing: user.id,
      room: MEMORIES_ROOM,
      agent: DEMO_AGENT,
      source: DEMO_SOURCE,
      only: MEMORY_TOOLS,
    });
  }

  eventFor(
    call: { name: string; input: unknown; output: unknown },
    durationMs: number,
  ): MemoryRecalledEvent | MemoryFiledEvent | undefined {
    const input = (call.input ?? {}) as Record<string, unknown>;
    switch (call.name) {
      case "recall": {
        const hits = (call.output as { hits?: { id: string; content: string }[] } | undefined)?.hits ?? [];
        return {
          type: "memory-recalled",
          via: "tool",
          memories: hits.map((hit) => ({ id: hit.id, content: hit.content })),
          durationMs,
        };
      }
      case "kg_query": {
        const facts = (call.output as { facts?: FactView[] } | undefined)?.facts ?? [];
        return {
          type: "memory-recalled",
          via: "tool",
          memories: facts.map((fact) => ({ id: fact.id, content: fact.text })),
          durationMs,
        };
      }
      case "remember":
      case "diary_write": {
        const result = call.output as { id?: unknown } | undefined;
        if (typeof result?.id !== "string") return undefined;
        const content = String(call.name === "remember" ? input.content : input.entry);
        return {
          type: "memory-filed",
          via: "tool",
          ids: [result.id],
          memories: [{ id: result.id, content }],
          durationMs,
        };
      }
      case "kg_add": {
        const fact = (call.output as { fact?: FactView } | undefined)?.fact;
        if (!fact) return undefined;
        return {
          type: "memory-filed",
          via: "tool",
          ids: [fact.id],
          memories: [{ id: fact.id, content: fact.text }],
          durationMs,
        };
      }
      default:
        return undefined;
    }
  }

  async file(transcript: SessionTranscript, signal: AbortSignal): Promise<{ ids: string[] }> {
    checkSignal(signal);
    const drafts = transcriptDrafts(transcript, transcript.user.id, this.palace.limits.maxDrawerChars);
    const filed = await this.viewFor(transcript.user).file(drafts);
    return { ids: filed.map((result) => result.id) };
  }

  async overview(user: DocsUser): Promise<MemoryOverview> {
    const taxonomy = await this.viewFor(user).taxonomy();
    const own = taxonomy.find((wing) => wing.wing === user.id);
    return {
      wing: user.id,
      wings: taxonomy.map((wing) => ({ wing: wing.wing, drawers: wing.count })),
      rooms: (own?.rooms ?? []).map((room) => ({ room: room.room, drawers: room.count })),
      recent: await this.drawers(user),
      facts: this.facts(user),
    };
  }

  async drawers(
    user: DocsUser,
    options: { room?: string; limit?: number } = {},
  ): Promise<MemoryDrawerView[]> {
    const limit = options.limit ?? this.limits.memoryPanelDrawers;
    // The palace lists in filing order; the newest are the last page's tail.
    const newest: Drawer[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.viewFor(user).list({
        wing: user.id,
        ...(options.room === undefined ? {} : { room: options.room }),
        limit: this.palace.limits.maxListDrawers,
        ...(cursor === undefined ? {} : { cursor }),
      });
      newest.push(...page.drawers);
      newest.splice(0, Math.max(0, newest.length - limit));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return newest.reverse().map(drawerView);
  }

  /** Facts about the user true now, subject = the user id. */
  facts(user: DocsUser): MemoryFactView[] {
    return this.viewFor(user)
      .kg.query({ subject: user.id, asOf: new Date().toISOString(), limit: this.limits.memoryPanelFacts })
      .map((triple) => ({
        id: triple.id,
        subject: triple.subject,
        predicate: triple.predicate,
        object: triple.object,
        ...(triple.validFrom === undefined ? {} : { validFrom: triple.validFrom }),
        ...(triple.sourceDrawerId === undefined ? {} : { sourceDrawerId: triple.sourceDrawerId }),
        text: `${triple.subject} — ${triple.predicate} → ${triple.object}`,
      }));
  }

  async forget(user: DocsUser, id: string): Promise<ForgetResult> {
    const view = this.viewFor(user);
    const drawer = await view.get(id);
    if (drawer) {
      await view.delete(id);
      // A fact taken from the forgotten drawer would bring it back through kg_query: end it too.
      let factsEnded = 0;
      for (const fact of view.kg.query({})) {
        if (fact.sourceDrawerId === id && fact.validTo === undefined) {
          view.kg.invalidate(fact.id);
          factsEnded++;
        }
      }
      return { forgotten: "drawer", factsEnded };
    }
    const fact = view.kg
      .query({})
      .find((candidate) => candidate.id === id && candidate.validTo === undefined);
    if (fact) {
      view.kg.invalidate(fact.id);
      return { forgotten: "fact", factsEnded: 1 };
    }
    return { forgotten: "nothing", factsEnded: 0 };
  }

  async close(): Promise<void> {
    await this.palace.close();
  }
}

function drawerView(drawer: Drawer): MemoryDrawerView {
  return {
    id: drawer.id,
    room: drawer.room,
    hall: drawer.hall,
    content: drawer.content,
    ...(drawer.speaker === undefined ? {} : { speaker: drawer.speaker }),
    ...(drawer.sessionId === undefined ? {} : { sessionId: drawer.sessionId }),
    ...(drawer.turnId === undefined ? {} : { turnId: drawer.turnId }),
    timestamp: drawer.timestamp,
    filedAt: drawer.filedAt,
  };
}

function checkSignal(signal: AbortSignal): void {
  if (signal.aborted) throw new AbortError("the question was stopped");
}
