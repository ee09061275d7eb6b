import { AtriumError } from "@atrium/spec";

/**
 * A pack file that cannot be booted: not a pack at all, a newer format, cut short, or damaged.
 * The message names the file, what is wrong, and what to do (copy it again, upgrade).
 */
export class PackFormatError extends AtriumError {
  constructor(message: string) {
    super("VALIDATION", message);
  }
}
