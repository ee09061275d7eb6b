import type { QuickJSHandle } from "quickjs-emscripten";
import type { ToolOutcome } from "../worker-protocol.js";
import { crossBoundary } from "./output-accounting.js";
import type { SessionCore } from "./session-core.js";
import type { PendingToolCall, SessionRun } from "./session-run.js";

/**
 * The sandbox's half of the tool bridge: a tool called by guest code becomes a promise in the
 * sandbox and a request to the host (`HostLink.requestTool`); the host's answer is delivered,
 * then handed back to the code between promise jobs. The host half is the executor's
 * `handleToolCall` (kit's `SandboxedExecutor.callTool`).
 */

/** A tool call from guest code: returns the promise handle the code awaits. */
export function callToolFromSandbox(core: SessionCore, name: string, json: string): QuickJSHandle {
  const run = core.active;
  const { limits } = core;
  if (!run || run.stop) throw new Error(`tool ${name} was called after the step ended`);
  if (!core.toolNames.has(name)) throw new ReferenceError(`${name} is not a tool anymore`);
  if (++run.toolCalls > limits.maxToolCalls) {
    run.stopAtLimit(
      "runtime",
      "RangeError",
      `The code made more than ${limits.maxToolCalls} tool calls in one step and was stopped; call tools fewer times per step`,
      core.activeCode,
    );
    throw new RangeError("too many tool calls");
  }
  if (json.length > limits.maxTransferChars) {
    throw new RangeError(
      `the input of tool ${name} is ${json.length} characters of JSON; the limit is ${limits.maxTransferChars}`,
    );
  }
  if (!crossBoundary(core, run, json.length)) throw new RangeError("too much data crossed in this step");
  const deferred = core.sandbox.context.newPromise();
  const call: PendingToolCall = { id: `call_${run.id}_${run.toolCalls}`, name, deferred };
  run.pending.add(call);
  core.link.requestTool(run.id, call.id, name, json);
  return deferred.handle;
}

/** The host's answer to a call of `run` (a stale one, for an ended run, is dropped). */
export function deliverToolResult(
  run: SessionRun | undefined,
  runId: number,
  callId: string,
  outcome: ToolOutcome,
): void {
  if (!run || run.id !== runId) return;
  for (const call of run.pending) {
    if (call.id === callId) run.settle(call, outcome);
  }
}

/** Hands settled tool calls back to the code (resolve or reject their promises). */
export function applySettledCalls(core: SessionCore, run: SessionRun): void {
  const { sandbox } = core;
  for (const call of run.settled.splice(0)) {
    run.pending.delete(call);
    const outcome = call.outcome;
    try {
      if (!outcome || run.stop) continue;
      if (outcome.ok && outcome.json !== undefined && !crossBoundary(core, run, outcome.json.length))
        continue;
      if (outcome.ok) {
        const imported = sandbox.callHelper("importValue", outcome.json);
        if (imported.error) {
          call.deferred.reject(imported.error);
          imported.error.dispose();
        } else {
          call.deferred.resolve(imported.value);
          imported.value.dispose();
        }
      } else {
        const error = sandbox.context.newError({ name: outcome.name, message: outcome.message });
        try {
          sandbox.callHelper("markToolError", error).dispose();
          call.deferred.reject(error);
        } finally {
          error.dispose();
        }
      }
    } finally {
      call.deferred.dispose();
    }
  }
}

/** Frees the promises of the run's unfinished tool calls (the step is over). */
export function dropPendingCalls(run: SessionRun): void {
  for (const call of run.pending) call.deferred.dispose();
  run.pending.clear();
  run.settled.length = 0;
}
