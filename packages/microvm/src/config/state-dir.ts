import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where named machines keep their disks: state, not cache (deleting the cache must not delete a
 * machine). `ATRIUM_VM_STATE`, else `$XDG_STATE_HOME/atrium/microvm`, else `~/.local/state/...`.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ATRIUM_VM_STATE) return env.ATRIUM_VM_STATE;
  const base = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(base, "atrium", "microvm");
}
