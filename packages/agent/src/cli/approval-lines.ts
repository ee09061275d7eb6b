/**
 * The longest a call's input is shown while it waits for an approval: enough to see what it
 * would do, short enough that the question stays on screen.
 */
const MAX_INPUT_CHARS = 300;

/** A call's input as one line of compact JSON, cut at `MAX_INPUT_CHARS` with a note of what went. */
export function compactInput(input: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(input);
  } catch {
    json = undefined; // a cycle or a BigInt: the tool still gets it, the terminal gets a word
  }
  const text = json ?? String(input);
  if (text.length <= MAX_INPUT_CHARS) return text;
  // @atrium/kit's capText would do, but its entry loads every executor module, and this file is
  // loaded by --help too.
  return `${text.slice(0, MAX_INPUT_CHARS)}… (${text.length} characters in all)`;
}

/** The line saying a call waits: what runs, with what, and in which step. */
export function approvalRequestedLine(name: string, input: unknown, step: number | undefined): string {
  return `⏸ ${name}(${compactInput(input)}) needs approval${step === undefined ? "" : ` (step ${step})`}`;
}

/** The line saying how it was answered. */
export function approvalResolvedLine(name: string, approved: boolean, reason?: string): string {
  if (approved) return `✓ ${name} approved`;
  return `✗ ${name} denied${reason ? `: ${reason}` : ""}`;
}
