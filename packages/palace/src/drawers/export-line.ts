import { invalidInput } from "../errors.js";
import type { PalaceLimits } from "../limits.js";
import type { DrawerDraft } from "./drawer.js";

/**
 * Bytes an export line holds besides a drawer's text fields: `kind`, `id`, `contentHash`, the
 * times, counts, pin and position, with their JSON keys (about 350 bytes; the rest is margin).
 */
export const EXPORT_LINE_OVERHEAD_BYTES = 1_024;

/**
 * Anything the palace accepts must export and import back. An import reads one drawer per line
 * and refuses a line over `maxImportLineBytes`, so a drawer whose line would be longer (content
 * full of characters JSON escapes, or large metadata) is refused when it is written, not found
 * out when a whole export cannot be imported. `field` names the drawer in the caller's input.
 */
export function checkExportLine(
  drawer: Pick<
    DrawerDraft,
    "content" | "wing" | "room" | "hall" | "source" | "speaker" | "turnId" | "sessionId" | "metadata"
  >,
  field: string,
  limits: Pick<PalaceLimits, "maxImportLineBytes">,
): void {
  const bytes = exportLineBytes(drawer);
  if (bytes > limits.maxImportLineBytes) {
    throw invalidInput(
      field,
      `would take ${bytes} bytes as an export line, more than maxImportLineBytes (${limits.maxImportLineBytes}), so its export could not be imported; shorten its content or metadata`,
    );
  }
}

/** The bytes of a drawer's export line: its text fields as JSON, plus the fixed fields' share. */
export function exportLineBytes(
  drawer: Pick<
    DrawerDraft,
    "content" | "wing" | "room" | "hall" | "source" | "speaker" | "turnId" | "sessionId" | "metadata"
  >,
): number {
  const { content, wing, room, hall, source, speaker, turnId, sessionId, metadata } = drawer;
  const text = JSON.stringify({ content, wing, room, hall, source, speaker, turnId, sessionId, metadata });
  return Buffer.byteLength(text, "utf8") + EXPORT_LINE_OVERHEAD_BYTES;
}
