import { ConfigError } from "@atrium/spec";

/**
 * A call reached an executor while one of its runs was still going, most often a tool that
 * calls back into the executor running it. Runs of one executor never overlap: use a second
 * executor for nested work.
 */
export class ExecutorBusyError extends ConfigError {
  constructor(operation: string) {
    super(
      `${operation} was called while this executor is running code (a tool calling back into its own executor?); runs never overlap: wait for the run to finish or use another executor`,
    );
  }
}
