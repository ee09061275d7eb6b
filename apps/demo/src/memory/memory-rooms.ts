/**
 * Where the demo files things in a user's wing (one wing per user id). What the user asks the
 * agent to keep goes to one room and the session transcripts to another, so recalling "what the
 * user told me" never returns the transcripts that merely repeat it, and forgetting a memory is
 * not undone by the next recall.
 */
export const MEMORIES_ROOM = "memories";
export const SESSIONS_ROOM = "sessions";
/** The hall of transcript turns (the palace files agent memories in its own "memories" hall). */
export const CONVERSATIONS_HALL = "conversations";
/** The palace tools the agent gets: its memory, not the whole palace (its own `search` is the docs'). */
export const MEMORY_TOOLS = ["recall", "remember", "kg_query", "kg_add", "diary_write", "diary_read"];
/** Whose diary the agent's diary tools keep. */
export const DEMO_AGENT = "docs-assistant";
/** The `source` of drawers the demo files. */
export const DEMO_SOURCE = "atrium-demo";
