import { AtriumError } from "@atrium/spec";

/**
 * A request the Python sandbox answered with an error (the harness refused it, say): the
 * interpreter is still sound, unlike a `SandboxExitError` (from `@atrium/kit`), after which the
 * executor replaces it. Its `name` is the one the sandbox gave the error.
 */
export class PythonWorkerRequestError extends AtriumError {
  constructor(message: string) {
    super("EXECUTION", message);
  }
}
