import { type JsTape, MAX_TAPE_VALUES } from "../run-tape.js";
import type { StepTapeRequest } from "../worker-protocol.js";
import type { SessionCore } from "./session-core.js";
import { whileDraining } from "./step-evaluation.js";

/**
 * The tape of a recorded step inside the sandbox (run-tape.ts): the prelude's taped sources
 * are told to record (and to give a replay's values first) before the code runs, and what they
 * gave is read back after it. The host checks what comes back; here a tape that cannot be read
 * becomes an incomplete one, which no replay accepts.
 */

/** What a step that recorded reports when its tape could not be read (a crash, a broken context). */
export function lostTape(): JsTape {
  return { random: [], now: [], complete: false };
}

/** A step that never ran code (a syntax error) used no values. */
export function emptyTape(): JsTape {
  return { random: [], now: [], complete: true };
}

/** Starts recording in the sandbox, with the replay's values to give first. */
export function beginTape(core: SessionCore, request: StepTapeRequest): void {
  const replay = request.replay && JSON.stringify({ random: request.replay.random, now: request.replay.now });
  const begun = core.sandbox.callHelper("beginTape", replay, String(MAX_TAPE_VALUES));
  (begun.error ?? begun.value).dispose();
}

/** Stops recording and reads what the sources gave; even after a stop (a short budget, as `endStep`). */
export function takeTape(core: SessionCore): JsTape {
  const ended = whileDraining(core, () => core.sandbox.callHelper("endTape"));
  if (ended.error) {
    ended.error.dispose();
    return lostTape();
  }
  const json = core.sandbox.takeString(ended.value);
  try {
    return json === undefined ? lostTape() : (JSON.parse(json) as JsTape);
  } catch {
    return lostTape();
  }
}
