import { describeThrown } from "@atrium/kit";
import type { ExecutionError } from "@atrium/spec";
import { QuickJsSandbox } from "../quickjs-sandbox.js";
import type { SessionCore } from "./session-core.js";
import type { SessionRun } from "./session-run.js";
import { JOB_BATCH, type Settlement } from "./step-evaluation.js";
import { dropPendingCalls } from "./tool-bridge.js";

/**
 * Crash recovery of a session: ending a step inside the sandbox (leftover jobs cut short, a
 * context that is stuck or out of memory replaced), and a new wasm instance after a crash of
 * the old one. Each replacement installs the tools again; variables are lost and the run says so.
 */

/** Batches of leftover jobs run (each interrupted at once) before a context counts as stuck. */
const LEFTOVER_JOB_BATCHES = 64;

/**
 * Ends the run inside the sandbox: frees the promises of unfinished tool calls and cuts
 * leftover jobs short. Returns true when the context had to be replaced (state lost).
 */
export async function cleanUpRun(
  core: SessionCore,
  run: SessionRun,
  settlement: Settlement,
): Promise<boolean> {
  dropPendingCalls(run);
  const { runtime } = core.sandbox;
  if (runtime.hasPendingJob()) {
    run.stop ??= { type: "ended" };
    for (let i = 0; i < LEFTOVER_JOB_BATCHES && runtime.hasPendingJob(); i++) {
      runtime.executePendingJobs(JOB_BATCH).error?.dispose();
    }
  }
  const outOfMemory = settlement.type === "error" && settlement.error.kind === "memory";
  if (runtime.hasPendingJob() || (outOfMemory && !isResponsive(core))) {
    await renewContext(core);
    return true;
  }
  return false;
}

/** A new runtime and context (all state dropped), tools installed again. */
export async function renewContext(core: SessionCore): Promise<void> {
  const old = core.sandbox;
  try {
    old.dispose();
    core.sandbox = QuickJsSandbox.onModule(old.module, core.limits, core.callbacks);
  } catch {
    // Freeing failed inside QuickJS, so the wasm instance is suspect: start on a new one.
    core.sandbox = await QuickJsSandbox.create(core.limits, core.callbacks);
  }
  core.installTools();
}

/**
 * A failure of the wasm instance itself (Node's stack overflowing inside wasm frames, an abort
 * in QuickJS): its memory can no longer be trusted, so the session moves to a new instance.
 */
export async function recoverFromCrash(core: SessionCore, crash: unknown): Promise<ExecutionError> {
  // The old instance is dropped without freeing anything: after a crash its allocator state
  // is unknown, and freeing could abort. The garbage collector reclaims its memory.
  core.sandbox = await QuickJsSandbox.create(core.limits, core.callbacks);
  core.installTools();
  const stackOverflow = crash instanceof RangeError && /call stack/i.test(crash.message);
  const reason = stackOverflow
    ? "Maximum call stack size exceeded: the code nested too deeply (deep recursion, or deeply nested data in JSON or a literal)"
    : `The sandbox crashed (${describeThrown(crash)})`;
  return {
    kind: stackOverflow ? "runtime" : "memory",
    name: stackOverflow ? "RangeError" : "InternalError",
    message: `${reason}; it was restarted and every variable defined so far is lost`,
    stateLost: true,
  };
}

/** After an out-of-memory error: can the context still run a little code? */
function isResponsive(core: SessionCore): boolean {
  const probe = core.sandbox.context.evalCode("[1, 2, 3].map((n) => n * 2).join()", "atrium:probe", {
    type: "global",
  });
  if (probe.error) {
    probe.error.dispose();
    return false;
  }
  probe.value.dispose();
  return true;
}
