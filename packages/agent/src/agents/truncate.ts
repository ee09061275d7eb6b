/**
 * Cuts `text` to at most about `maxChars` by removing its middle: the head shows what a long
 * output was, the tail shows how it ended (often the error or the result), and the marker tells
 * the model that something is missing and how much.
 */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const keep = Math.max(0, maxChars);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${cut} characters cut from the middle; print less, or slice what you need …]\n${tail ? text.slice(-tail) : ""}`;
}
