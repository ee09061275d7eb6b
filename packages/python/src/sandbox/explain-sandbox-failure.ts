import { OsSandboxUnavailableError, probeOsSandbox } from "@atrium/kit";

const OPT_OUT =
  'or pass isolation: "wasm" to run Python in a worker thread of this process, behind language-level guards only';

/**
 * Turns a sandboxed interpreter that would not boot into an error that says why. When the OS
 * sandbox itself cannot start here (no bubblewrap, namespaces off, not Linux), that is the
 * answer, with what to install; otherwise the boot's own error stands.
 */
export async function explainSandboxFailure(error: unknown): Promise<unknown> {
  if (error instanceof OsSandboxUnavailableError) {
    return new OsSandboxUnavailableError(`PythonExecutor: ${error.message}; ${OPT_OUT}`);
  }
  const report = await probeOsSandbox();
  if (!report.ok) return new OsSandboxUnavailableError(`PythonExecutor: ${report.reason}; ${OPT_OUT}`);
  return error;
}
