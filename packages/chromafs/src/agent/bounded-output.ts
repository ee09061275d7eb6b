/**
 * Cuts text to at most `maxBytes` UTF-8 bytes (never inside a character) and says so, naming the
 * full size and what to do: a model reading a 5 MB `cat` needs a note, not the 5 MB.
 */
export function boundOutput(text: string, maxBytes: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  let cut = Buffer.from(text).subarray(0, maxBytes).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  return `${cut}\n[output truncated: ${bytes} bytes, showing the first ${Buffer.byteLength(cut)}; narrow the command (head, grep -m, wc)]\n`;
}
