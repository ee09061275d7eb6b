/**
 * Every default limit of @atrium/agent, in one place. Each section belongs to one area; the
 * numbers are defaults that options override.
 */

// ── QuickJS executor ──────────────────────────────────────────────────────────────────────────

/** Wall-clock budget of one `run` (sync code, awaited tools and jobs together). */
export const QUICKJS_TIMEOUT_MS = 30_000;

/** Heap of one sandbox; an allocation past it fails inside the code with an "out of memory" error. */
export const QUICKJS_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Interpreter stack. Kept small on purpose: QuickJS's own check must fire before the wasm frames
 * exhaust Node's native stack (about 1 MB); 256 KiB allows ~1,400 plain recursive calls.
 */
export const QUICKJS_MAX_STACK_BYTES = 256 * 1024;

/** Printed characters kept per run; beyond it the middle is cut (head and tail stay). */
export const QUICKJS_MAX_OUTPUT_CHARS = 20_000;

/** Printed characters after which a run is a flood and ends with an "output-limit" error. */
export const QUICKJS_MAX_PRINTED_CHARS = 5_000_000;

/** Tool calls one run may make; the next one ends the run. */
export const QUICKJS_MAX_TOOL_CALLS = 200;

/** Promise jobs (microtasks) one run may execute; past it the run ends (a promise flood). */
export const QUICKJS_MAX_JOBS = 1_000_000;

/** Timers (`setTimeout`) one run may have pending at once. */
export const QUICKJS_MAX_TIMERS = 100;

/** Longest code one run accepts. */
export const QUICKJS_MAX_CODE_CHARS = 200_000;

/** Largest JSON text one value may take crossing the sandbox boundary (results, tool data). */
export const QUICKJS_MAX_TRANSFER_CHARS = 5_000_000;

/** Time allowed, after a run stopped, for reading its error out of the sandbox (getters run there). */
export const QUICKJS_CLEANUP_MS = 250;

/** How long past a run's timeout the host waits for the sandbox worker before replacing it. */
export const QUICKJS_WATCHDOG_GRACE_MS = 2_000;

/** How long after an abort or close the host waits for the sandbox worker before replacing it. */
export const QUICKJS_STOP_GRACE_MS = 1_000;

// ── Agent loop ────────────────────────────────────────────────────────────────────────────────

/** Action steps per run before the closing "answer now" model call. */
export const DEFAULT_MAX_STEPS = 20;

/** Wall-clock budget of one code step in the sandbox (the executor interrupts past it). */
export const DEFAULT_STEP_TIMEOUT_MS = 30_000;

/** An observation longer than this is cut in the middle, keeping its head and tail. */
export const MAX_OBSERVATION_CHARS = 20_000;

/** Images of action steps older than this many steps are replaced by a note in model requests. */
export const DEFAULT_KEEP_IMAGES_FOR_STEPS = 2;

/** Images one action step may add (from tools or the sandbox); the rest are left out, with a note. */
export const MAX_STEP_IMAGES = 8;

/** Largest image file or byte array `run(task, { images })` accepts, and largest image a step keeps. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Images one run may be given up front. */
export const MAX_TASK_IMAGES = 16;

/** Native tool calls one model reply may ask for; more is answered with an error observation. */
export const MAX_TOOL_CALLS_PER_STEP = 16;

/** How much of each extra variable's value the task text previews for the model. */
export const VARIABLE_PREVIEW_CHARS = 200;

// ── Models ────────────────────────────────────────────────────────────────────────────────────

/** ScriptedModel's usage estimate: characters per token of text (a common rule of thumb). */
export const SCRIPTED_CHARS_PER_TOKEN = 4;

/** ScriptedModel's usage estimate for one image part (OpenAI's low-detail image cost). */
export const SCRIPTED_IMAGE_TOKENS = 85;

/** Model calls: attempts in all (the first included) on 429, 5xx, timeouts and network errors. */
export const MODEL_RETRY_MAX_ATTEMPTS = 4;

/** Backoff before the second attempt; doubled for each later one, with jitter. */
export const MODEL_RETRY_BASE_DELAY_MS = 1_000;

/** Ceiling of the exponential backoff. */
export const MODEL_RETRY_MAX_DELAY_MS = 30_000;

/** Ceiling of a wait the provider asked for with Retry-After / retry-after-ms. */
export const MODEL_RETRY_MAX_AFTER_MS = 60_000;

/** One model request (one attempt), start to end, streamed or not. */
export const MODEL_REQUEST_TIMEOUT_MS = 300_000;

/** The longest silence between two chunks of a streamed answer (one attempt). */
export const MODEL_STREAM_CHUNK_TIMEOUT_MS = 60_000;

/** A `scripted:<path>` reply file larger than this is refused. */
export const SCRIPTED_FILE_MAX_BYTES = 10 * 1024 * 1024;
