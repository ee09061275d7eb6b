import { randomInt } from "node:crypto";
import { SandboxProtocolError } from "@atrium/kit";
import { ConfigError } from "@atrium/spec";

/**
 * The tape of a Python step: what a replay in another process needs so that the step's
 * non-deterministic sources give what they gave the first time (kit's `ExecutorRun.tape`).
 *
 * - `random`: the host picks a seed per recorded step and the harness seeds the module-level
 *   `random` instance with it as the step starts. A seed rather than values, because the
 *   module's functions do not all go through `random()` (`randint` draws from `getrandbits`).
 * - the clocks `time.time`, `time.monotonic`, `time.perf_counter` and their `_ns` forms: every
 *   value each gave, in order, one list per clock; a replay takes a clock's list first, then
 *   the live clock. `_ns` values are decimal strings: nanoseconds since 1970 pass 2^53, which a
 *   JSON number read by JavaScript would round.
 *
 * Not covered (see the README): `os.urandom`, `secrets`, `random.SystemRandom`, a
 * `random.Random()` the code makes itself or `random.seed()` without an argument (both seed from
 * `os.urandom`), `uuid.uuid4`, and `datetime.now()`/`date.today()` (the C clock of `_datetime`,
 * which no Python attribute stands in front of; only a subclass of `datetime` could, and values
 * of it would not be the `datetime` every other module makes).
 */

/** The clocks the harness tapes (names in Python's `time` module). */
export const TAPED_CLOCKS = [
  "time",
  "time_ns",
  "monotonic",
  "monotonic_ns",
  "perf_counter",
  "perf_counter_ns",
] as const;
export type TapedClock = (typeof TAPED_CLOCKS)[number];

/** Values each clock gave (numbers; decimal strings for `_ns` clocks), in order. */
export type ClockValues = Partial<Record<TapedClock, (number | string)[]>>;

/**
 * Clock values one step may record. Past it the step goes on with live values, unrecorded, and
 * its tape says `complete: false`: a replay of it is refused rather than left to diverge.
 */
export const MAX_TAPE_VALUES = 100_000;

/** `ExecutorRun.tape.recorded` (and `.replay`) of a Python step. */
export interface PythonTape {
  /** The seed of the module-level `random` at the step's start. */
  seed: number;
  clocks: ClockValues;
  /** False when the step used more than `MAX_TAPE_VALUES` clock values: not replayable. */
  complete: boolean;
}

/** What a recorded step's `run` request carries to the harness. */
export interface HarnessTapeRequest {
  seed: number;
  /** Values to give first (a replay); empty lists when recording afresh. */
  clocks: ClockValues;
  maxValues: number;
}

/** What the harness reports for a recorded step. */
export interface HarnessTapeReport {
  clocks: ClockValues;
  complete: boolean;
}

const CLOCK_NAMES: ReadonlySet<string> = new Set(TAPED_CLOCKS);
/** Nanoseconds as the harness writes them: an integer, at most 30 digits. */
const NANOSECONDS = /^-?\d{1,30}$/;
/** A seed fits a JavaScript number exactly, and randomInt draws below 2^48. */
const SEED_LIMIT = 2 ** 48 - 1;

/**
 * The request for a recorded step: a new seed, or the replay's seed and clock values. The
 * replay comes from a saved file, so it is checked; a bad or incomplete one is refused
 * (`ConfigError`) before the step starts.
 */
export function harnessTapeRequest(replay: unknown): HarnessTapeRequest {
  if (replay === undefined) return { seed: randomInt(SEED_LIMIT), clocks: {}, maxValues: MAX_TAPE_VALUES };
  const refuse = (why: string) => new ConfigError(`PythonExecutor: the replay tape ${why}`);
  if (!isRecord(replay)) throw refuse("is not an object { seed, clocks, complete }");
  const { seed, clocks, complete } = replay;
  if (!Number.isSafeInteger(seed) || (seed as number) < 0)
    throw refuse("has no seed (a non-negative integer)");
  if (complete !== true) {
    throw refuse(
      complete === false
        ? `is incomplete: the recorded step used more than ${MAX_TAPE_VALUES} clock values, so a replay of it could diverge`
        : "does not say whether it is complete",
    );
  }
  const problem = clockValuesProblem(clocks);
  if (problem) throw refuse(problem);
  return { seed: seed as number, clocks: clocks as ClockValues, maxValues: MAX_TAPE_VALUES };
}

/**
 * The recorded tape of a step from the harness's report, checked: the report comes from the
 * sandbox, which runs guest code (`SandboxProtocolError` ends it).
 */
export function recordedTape(request: HarnessTapeRequest, report: unknown): PythonTape {
  if (!isRecord(report) || typeof report.complete !== "boolean")
    throw new SandboxProtocolError("it reported a step's tape that is not { clocks, complete }");
  const problem = clockValuesProblem(report.clocks);
  if (problem) throw new SandboxProtocolError(`it reported a step's tape that ${problem}`);
  return { seed: request.seed, clocks: report.clocks as ClockValues, complete: report.complete };
}

/** What is wrong with a clocks object, or undefined. Sizes are checked before items are read. */
function clockValuesProblem(clocks: unknown): string | undefined {
  if (!isRecord(clocks)) return "has no clocks object";
  let total = 0;
  for (const [name, values] of Object.entries(clocks)) {
    if (!CLOCK_NAMES.has(name)) return `names a clock it does not tape (${name.slice(0, 40)})`;
    if (!Array.isArray(values)) return `has clock ${name} that is not a list`;
    total += values.length;
    if (total > MAX_TAPE_VALUES) return `holds more than ${MAX_TAPE_VALUES} clock values`;
  }
  for (const [name, values] of Object.entries(clocks) as [string, unknown[]][]) {
    const nanoseconds = name.endsWith("_ns");
    const valid = values.every((value) =>
      nanoseconds
        ? typeof value === "string" && NANOSECONDS.test(value)
        : typeof value === "number" && Number.isFinite(value),
    );
    if (!valid)
      return `has a value of clock ${name} that is not ${nanoseconds ? "integer text" : "a finite number"}`;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
