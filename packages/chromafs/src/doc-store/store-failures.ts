import { AsyncLocalStorage } from "node:async_hooks";

import { isStoreUnavailable, StoreUnavailableError } from "../errors.js";
/** The first store failure one command line ran into, and where (filled in as it is known). */
export interface StoreFailure {
  error: StoreUnavailableError;
  /** The command that hit it, when a command of ours saw it (`grep`, `search`). */
  command?: string;
  /** The page being read, when a file read hit it. */
  path?: string;
}

interface Scope {
  failure?: StoreFailure;
}

/**
 * just-bash's commands turn any error of a file read into "No such file or directory" and carry
 * on (grep with the other files, a pipeline with the next stage), so a dead store would read as
 * missing files and short output with exit status 0. Every place a store call is awaited notes
 * its failure here, in the async scope of the command line that made it (a concurrent command
 * of the same session has its own scope); the session then answers the whole line with an error.
 */
const scopes = new AsyncLocalStorage<Scope>();

export async function watchStoreFailures<T>(
  run: () => Promise<T>,
): Promise<{ value?: T; thrown?: unknown; failure?: StoreFailure }> {
  const scope: Scope = {};
  try {
    const value = await scopes.run(scope, run);
    return { value, failure: scope.failure };
  } catch (error) {
    if (isStoreUnavailable(error)) noteIn(scope, error, {});
    return { thrown: error, failure: scope.failure };
  }
}

/** Records `error` in the current command line's scope when it is a store failure; says whether it was. */
export function noteStoreFailure(
  error: unknown,
  where: { command?: string; path?: string } = {},
): error is StoreUnavailableError {
  if (!isStoreUnavailable(error)) return false;
  const scope = scopes.getStore();
  if (scope) noteIn(scope, error, where);
  return true;
}

function noteIn(
  scope: Scope,
  error: StoreUnavailableError,
  where: { command?: string; path?: string },
): void {
  scope.failure ??= { error };
  scope.failure.command ??= where.command;
  scope.failure.path ??= where.path;
}

/**
 * What a command line that hit a store failure answers (its message is the one line it prints): the command (named by our own
 * commands, or read off just-bash's own message about the path), the path, the store's message.
 */
export function storeFailureError(failure: StoreFailure, stderr: string): StoreUnavailableError {
  let command = failure.command;
  if (!command && failure.path) {
    const prefix = `: ${failure.path}: `;
    for (const line of stderr.split("\n")) {
      const at = line.indexOf(prefix);
      if (at > 0 && /^[\w.+-]+$/.test(line.slice(0, at))) {
        command = line.slice(0, at);
        break;
      }
    }
  }
  const path = failure.path && !failure.command ? `${failure.path}: ` : "";
  const { store, reason } = failure.error;
  return new StoreUnavailableError(store, reason, {
    cause: failure.error,
    context: `${command ?? "bash"}: ${path}`,
  });
}
