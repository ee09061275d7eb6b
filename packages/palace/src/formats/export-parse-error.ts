import { AtriumError, type AtriumErrorOptions } from "@atrium/spec";
import type { SourcePosition } from "./conversation.js";

/**
 * A file a miner cannot read at all: invalid JSON, a top-level shape no format has, a transcript
 * with no message in it. It names the position so the user can open the file there; the mining
 * run reports it with the file's name and goes on with the other files.
 */
export class ExportParseError extends AtriumError {
  readonly position: SourcePosition | undefined;
  /** The message without the position. */
  readonly detail: string;

  constructor(position: SourcePosition | undefined, detail: string, options: AtriumErrorOptions = {}) {
    super("PARSE", position === undefined ? detail : `${position}: ${detail}`, options);
    this.position = position;
    this.detail = detail;
  }
}
