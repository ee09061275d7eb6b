import type { DrawerDraft } from "@atrium/palace";
import type { SessionTranscript } from "../assistant/memory-seam.js";
import { CONVERSATIONS_HALL, DEMO_SOURCE, SESSIONS_ROOM } from "./memory-rooms.js";

/** Who speaks the assistant's turns in a filed transcript. */
export const ASSISTANT_SPEAKER = "assistant";

/**
 * A session as drawers, one per turn, verbatim: the question (spoken by the user), the text the
 * model wrote at each step, and the answer, with the session id, a turn id (`<session>:q`,
 * `<session>:s<step>`, `<session>:a`), the turn's time and its position. A turn longer than
 * `maxChars` is split into parts (`…#2`) that concatenate back to the turn.
 */
export function transcriptDrafts(
  transcript: SessionTranscript,
  wing: string,
  maxChars: number,
): DrawerDraft[] {
  const turns: { turnId: string; speaker: string; content: string; timestamp: string }[] = [
    {
      turnId: "q",
      speaker: transcript.user.id,
      content: transcript.question,
      timestamp: transcript.askedAt,
    },
    ...transcript.steps.map((step) => ({
      turnId: `s${step.step}`,
      speaker: ASSISTANT_SPEAKER,
      content: step.text,
      timestamp: step.at,
    })),
    { turnId: "a", speaker: ASSISTANT_SPEAKER, content: transcript.answer, timestamp: transcript.answeredAt },
  ];
  const drafts: DrawerDraft[] = [];
  for (const turn of turns) {
    if (turn.content.trim() === "") continue;
    const parts = splitAt(turn.content, maxChars);
    parts.forEach((content, part) => {
      drafts.push({
        content,
        wing,
        room: SESSIONS_ROOM,
        hall: CONVERSATIONS_HALL,
        source: `${DEMO_SOURCE}:${transcript.sessionId}`,
        position: drafts.length,
        speaker: turn.speaker,
        turnId: `${transcript.sessionId}:${turn.turnId}${parts.length > 1 ? `#${part + 1}` : ""}`,
        sessionId: transcript.sessionId,
        timestamp: turn.timestamp,
        ...(turn.turnId === "a" && transcript.sources.length > 0
          ? { metadata: { sources: transcript.sources.join("\n") } }
          : {}),
      });
    });
  }
  return drafts;
}

function splitAt(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const parts: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(at + max, text.length);
    // Never between the two halves of a surrogate pair (an emoji would become two broken parts).
    if (end < text.length && end - at > 1 && /[\uDC00-\uDFFF]/.test(text[end]!)) end--;
    parts.push(text.slice(at, end));
    at = end;
  }
  return parts;
}
