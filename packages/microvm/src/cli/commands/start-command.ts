import { rm, writeFile } from "node:fs/promises";
import { defineCommand } from "@atrium/kit/cli";
import { ConfigError } from "@atrium/spec";
import { defaultCacheDir } from "../../cache-dir.js";
import { defaultStateDir } from "../../config/state-dir.js";
import { bootNamedMachine } from "../../named-machine/boot-named-machine.js";
import { machinePaths, readNamedMachine, servingPid } from "../../named-machine/machine-store.js";
import { serveMachine } from "../control-server.js";
import { progressTo } from "../progress.js";

export const startCommand = defineCommand({
  name: "start",
  summary: "boot a named machine and serve it in the foreground",
  usage: "NAME",
  description: `Boots the named machine from its disk and serves it in the foreground until \`atrium-vm stop
NAME\`, Ctrl-C or SIGTERM; then the guest powers off cleanly and its disk keeps what was
written. \`atrium-vm exec\` and \`cp\` reach it from other terminals meanwhile.

The machine never outlives this process: if it dies (even by kill -9) QEMU is killed with it.
To keep a machine running in the background, run this command under a supervisor (systemd,
a container's init, tmux); there is no daemon of its own.`,
  positionals: { min: 1, max: 1, names: "the machine's NAME" },
  async run(args, io) {
    const name = args.positionals[0] as string;
    const store = { stateDir: defaultStateDir(io.env) };
    await readNamedMachine(name, store);
    const pid = await servingPid(name, store);
    if (pid) throw new ConfigError(`machine ${name} is already running (served by pid ${pid})`);
    const paths = machinePaths(name, store);
    await rm(paths.socket, { force: true }); // left by a process that was killed
    const machine = await bootNamedMachine(name, {
      ...store,
      cacheDir: defaultCacheDir(io.env),
      onProgress: progressTo(io),
    });
    let stopRequested!: () => void;
    const stopped = new Promise<void>((resolve) => {
      stopRequested = resolve;
    });
    const server = await serveMachine(machine, paths.socket, () => stopRequested());
    await writeFile(paths.pid, `${process.pid}\n`);
    const onSignal = () => stopRequested();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    io.stdout.write(
      `${name} is running (${machine.info.accelerator}); stop it with: atrium-vm stop ${name}\n`,
    );
    // A guest that dies on its own (a panic, its agent crashing) ends the serving process too,
    // with the console's last lines, instead of serving a dead machine.
    let died = false;
    const watchdog = setInterval(() => {
      if (!isAlive(machine.info.qemuPid)) {
        died = true;
        stopRequested();
      }
    }, 500);
    try {
      await stopped;
    } finally {
      clearInterval(watchdog);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      server.close();
      await machine.stop();
      await rm(paths.pid, { force: true });
      await rm(paths.socket, { force: true });
    }
    if (died) {
      const console = machine.consoleTail(1000);
      const reason = /Kernel panic - [^\n]*|atrium-(?:init|agent): [^\n]*/.exec(console)?.[0]?.trim();
      io.stderr.write(
        `atrium-vm start: ${name} stopped unexpectedly${reason ? ` (${reason})` : ""}; its console ended with:\n${machine.consoleTail()}\n`,
      );
      return 1;
    }
    io.stdout.write(`${name} stopped\n`);
    return 0;
  },
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
