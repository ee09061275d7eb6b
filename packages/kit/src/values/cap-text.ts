/**
 * Cuts `text` to at most `maxChars` characters, the last of which are a note saying how much
 * went: "… [cut 5,999,000 characters]". An error's text crosses into sandboxes and out over MCP,
 * and a tool can throw one of any length (6M characters went into a QuickJS sandbox past every
 * transfer limit). The result fits `maxChars` with its note, so capping it again (the server,
 * then the client) changes nothing. A surrogate pair is never split.
 */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let note = cutNote(text.length - maxChars);
  // The note's own length decides how much is cut, which may lengthen the note by a digit.
  for (let round = 0; round < 3; round++) {
    const next = cutNote(text.length - Math.max(0, maxChars - note.length));
    if (next.length === note.length) break;
    note = next;
  }
  let end = Math.max(0, maxChars - note.length);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}${cutNote(text.length - end)}`;
}

function cutNote(cut: number): string {
  return `… [cut ${cut.toLocaleString("en-US")} characters]`;
}
