/**
 * Printed output as the model reads it, at most `maxChars`: past that the first and last halves
 * are kept with a note of how much was cut between them, so both how output began and how it
 * ended stay visible.
 */
export function boundLogs(logs: string, maxChars: number): string {
  if (logs.length <= maxChars) return logs;
  const head = Math.ceil(maxChars / 2);
  const tail = Math.floor(maxChars / 2);
  const cut = logs.length - head - tail;
  return `${logs.slice(0, head)}\n… [${cut} characters of output cut] …\n${tail > 0 ? logs.slice(-tail) : ""}`;
}
