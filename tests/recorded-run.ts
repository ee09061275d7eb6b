import type { ExecutorRun } from "@atrium/kit";
import type { CodeExecutor, ExecutionResult } from "@atrium/spec";

/**
 * Runs `code` on a kit `SandboxedExecutor` as a step that records its tape (kit's
 * `ExecutorRun.tape`), giving `replay` first when there is one, and returns what it recorded.
 * It sets `run.tape` as the kit's replay driver will, by wrapping the executor's `startRun`,
 * for the executors' tape tests until the kit offers that as an API of its own.
 */
export async function recordedRun<Tape>(
  executor: CodeExecutor,
  code: string,
  replay?: unknown,
): Promise<{ result: ExecutionResult; recorded: Tape }> {
  type StartRun = (host: unknown, code: string, run: ExecutorRun) => Promise<unknown>;
  const hooks = executor as unknown as { startRun: StartRun };
  const startRun = hooks.startRun;
  let tape: ExecutorRun["tape"] | undefined;
  hooks.startRun = function (this: unknown, host, stepCode, run) {
    run.tape.record = true;
    if (replay !== undefined) run.tape.replay = replay;
    tape = run.tape;
    return startRun.call(this, host, stepCode, run);
  };
  try {
    const result = await executor.run(code);
    return { result, recorded: tape?.recorded as Tape };
  } finally {
    delete (hooks as Partial<typeof hooks>).startRun;
  }
}
