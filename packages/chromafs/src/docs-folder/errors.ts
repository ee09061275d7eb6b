import { AtriumError, type AtriumErrorOptions } from "@atrium/spec";

/** Ingest can't go on: bad arguments, an unreadable page, an invalid groups file, a conflicting collection. */
export class IngestError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("CONFIG", message, options);
  }
}
