import type { DocsUser } from "../docs/docs-library.js";

/**
 * Where long-term memory plugs into the assistant. Nothing implements it yet: the palace
 * (`@atrium/palace`) will, from `src/memory/`. Until then the app runs without memory, and the
 * trace shows no memory events — nothing is faked.
 */
export interface AssistantMemory {
  /**
   * Before the agent runs: what is remembered about this user that bears on the question. The
   * `context` text is added to the agent's instructions for this question.
   */
  recall(
    question: string,
    user: DocsUser,
    signal: AbortSignal,
  ): Promise<{ context: string; memories: { id: string; content: string }[] }>;
  /** After the answer: files the exchange (verbatim) for later sessions. */
  file(
    exchange: { question: string; answer: string; sources: readonly string[]; user: DocsUser },
    signal: AbortSignal,
  ): Promise<{ ids: string[] }>;
  close?(): Promise<void>;
}
