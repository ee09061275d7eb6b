import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts QEMU so that it never outlives this process. Two guards: `setpriv --pdeathsig KILL`
 * (util-linux) makes the kernel kill QEMU when its parent dies, however it dies (`kill -9`
 * included; the flag survives the exec into QEMU); and an exit hook kills every QEMU still
 * running when Node exits normally. Third, inside the guest: the agent powers off when the host
 * end of its channel closes.
 */
export function spawnQemu(qemuPath: string, args: readonly string[]): ChildProcess {
  const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));
  const child = setpriv
    ? spawn(setpriv, ["--pdeathsig", "KILL", "--", qemuPath, ...args], { stdio: ["pipe", "pipe", "pipe"] })
    : spawn(qemuPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  live.add(child);
  child.on("exit", () => live.delete(child));
  // A QEMU killed mid-run (Ctrl-C reaches the whole process group) may reset its stdio pipes; its
  // end is reported by "exit", and an unheard stream error would crash the host.
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on("error", () => {});
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const running of live) running.kill("SIGKILL");
    });
  }
  return child;
}
