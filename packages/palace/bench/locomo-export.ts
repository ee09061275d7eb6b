import type { LocomoConversation } from "./locomo/locomo-format.js";

/**
 * LoCoMo's dialogues rewritten as a Claude.ai data export (`conversations.json`): one conversation
 * per session, the first speaker as "human" and the second as "assistant". Real conversational
 * text in a real export format, so the mining benchmark runs the whole miner (detection, parsing,
 * chunking, rooms, incremental bookkeeping) rather than filing ready-made drafts.
 */
export function locomoAsClaudeAiExport(conversations: readonly LocomoConversation[]): unknown[] {
  return conversations.flatMap((conversation) =>
    conversation.sessions.map((session) => ({
      uuid: `${conversation.sampleId}-session-${session.number}`,
      name: `${conversation.speakers.join(" and ")}, session ${session.number}`,
      created_at: session.timestamp,
      chat_messages: session.turns.map((turn, index) => ({
        uuid: `${conversation.sampleId}-${turn.turnId}`,
        text: turn.content,
        content: [{ type: "text", text: turn.content }],
        sender: turn.speaker === conversation.speakers[0] ? "human" : "assistant",
        created_at: new Date(Date.parse(session.timestamp) + index * 60_000).toISOString(),
      })),
    })),
  );
}

/** Messages in the export: what `mine.turns_per_s` counts (one drawer per turn with `chunking: "turn"`). */
export function exportTurns(exported: readonly unknown[]): number {
  return exported.reduce<number>(
    (sum, conversation) => sum + (conversation as { chat_messages: unknown[] }).chat_messages.length,
    0,
  );
}
