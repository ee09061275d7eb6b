import type { LongTermMemoryOptions } from "@atrium/agent";
import type { Tool } from "@atrium/spec";
import type { DocsUser } from "../docs/docs-library.js";
import type { MemoryFiledEvent, MemoryRecalledEvent } from "./assistant-events.js";

/** One remembered item as the trace and the panel show it. */
export interface RecalledMemory {
  id: string;
  content: string;
}

/** One question's session, filed verbatim after the answer: the question, each step's text, the answer. */
export interface SessionTranscript {
  sessionId: string;
  user: DocsUser;
  question: string;
  /** ISO 8601 times. */
  askedAt: string;
  /** What the model wrote at each step (thought and code), verbatim. */
  steps: readonly { step: number; text: string; at: string }[];
  answer: string;
  answeredAt: string;
  sources: readonly string[];
}

/** A drawer as the memory panel lists it. */
export interface MemoryDrawerView {
  id: string;
  room: string;
  hall: string;
  content: string;
  speaker?: string;
  sessionId?: string;
  turnId?: string;
  /** When it happened (ISO 8601); `filedAt` is when it was filed. */
  timestamp: string;
  filedAt: string;
}

/** A knowledge-graph fact about the user, true now. */
export interface MemoryFactView {
  id: string;
  subject: string;
  predicate: string;
  object: string;
  validFrom?: string;
  /** The drawer the fact was taken from, when known (forgetting that drawer ends the fact). */
  sourceDrawerId?: string;
  /** One readable line: "alice — prefers → TypeScript examples". */
  text: string;
}

/** What the memory panel shows for one user. */
export interface MemoryOverview {
  /** The user's wing (one per user id). */
  wing: string;
  /** Every wing of the palace with its drawer count. */
  wings: { wing: string; drawers: number }[];
  /** The rooms of the user's wing with their drawer counts. */
  rooms: { room: string; drawers: number }[];
  /** The user's newest drawers first (`memoryPanelDrawers` of them). */
  recent: MemoryDrawerView[];
  /** Facts about the user true now (`memoryPanelFacts` of them). */
  facts: MemoryFactView[];
}

/** What `forget` did: a drawer deleted (and the facts taken from it ended), a fact ended, or nothing. */
export interface ForgetResult {
  forgotten: "drawer" | "fact" | "nothing";
  factsEnded: number;
}

/**
 * Long-term memory as the assistant uses it, implemented by the palace (`src/memory/`). The
 * assistant gives the agent the user's `MemoryStore` (the agent recalls from it before the
 * question and reads its wake-up), the memory's tools and how to use them, turns their results
 * into trace events, and files each session's transcript after the answer. The rest is the read
 * API of the web UI's memory panel.
 */
export interface AssistantMemory {
  /** Names of the tools `tools(user)` returns (the same for every user). */
  readonly toolNames: readonly string[];
  /** The user's memory as the agent's long-term memory: recalled before the question, quoted as data. */
  longTermMemory(user: DocsUser): LongTermMemoryOptions;
  /** How to use the memory tools, for the agent's instructions. */
  guide(user: DocsUser): string;
  /** The agent's memory tools for this user (recall, remember, kg_query, kg_add …, confined to the user's wing). */
  tools(user: DocsUser): readonly Tool[];
  /** A memory tool's call and result as a trace event, or undefined when it recalled or filed nothing. */
  eventFor(
    call: { name: string; input: unknown; output: unknown },
    durationMs: number,
  ): MemoryRecalledEvent | MemoryFiledEvent | undefined;
  /** After the answer: files the session's transcript verbatim. */
  file(transcript: SessionTranscript, signal: AbortSignal): Promise<{ ids: string[] }>;
  /** The memory panel: the user's wing, rooms, newest drawers and facts. */
  overview(user: DocsUser): Promise<MemoryOverview>;
  /** Drawers of the user's wing, newest first, optionally one room only. */
  drawers(user: DocsUser, options?: { room?: string; limit?: number }): Promise<MemoryDrawerView[]>;
  /** Forgets a drawer (ending the facts taken from it) or a fact of the user's, by id. */
  forget(user: DocsUser, id: string): Promise<ForgetResult>;
  close?(): Promise<void>;
}
