import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type CliIo, defineCommand, integerOption } from "@atrium/kit/cli";
import { defaultStateDir } from "../../config/state-dir.js";
import { DEFAULT_MICROVM_LIMITS } from "../../limits.js";
import { Machine } from "../../machine/machine.js";
import { snapshotServedMachine } from "../control-client.js";
import { guestCommand, TIMEOUT_OPTION, timeoutOption } from "./run-command.js";

/** The snapshot of a running named machine, written by its serving process into `dir`. */
async function snapshotNamed(name: string, dir: string, io: CliIo): Promise<string> {
  const path = join(dir, `${name}.snapshot`);
  await snapshotServedMachine(name, path, { stateDir: defaultStateDir(io.env) });
  return path;
}

export const forkCommand = defineCommand({
  name: "fork",
  summary: "clone a running machine or a snapshot N times and run one command in each",
  usage: "[options] SOURCE N -- COMMAND [ARG...]",
  description: `Makes N copy-on-write clones of SOURCE, a snapshot FILE or the running named machine of that
name (snapshotted first; it runs on), runs COMMAND in each at once, and prints each clone's
output under a "== fork I: exit CODE ==" line, stderr likewise on stderr. Each clone has its
own disk overlay over the shared image and fresh randomness; none sees another's writes. The
exit code is the first non-zero one of the clones, or 0. N is at most ${DEFAULT_MICROVM_LIMITS.maxForks} (maxForks).`,
  options: TIMEOUT_OPTION,
  positionals: { min: 2, max: 2, names: "the SOURCE (snapshot file or machine name) and the count N" },
  rest: true,
  async run(args, io) {
    const command = guestCommand(args.rest);
    const timeoutMs = timeoutOption(args.values.timeout);
    const [source, countText] = args.positionals as [string, string];
    const count = integerOption(countText, "N", { min: 1, max: DEFAULT_MICROVM_LIMITS.maxForks }) as number;
    const dir = await mkdtemp(join(tmpdir(), "atrium-vm-fork-"));
    try {
      const file = existsSync(resolve(io.cwd, source))
        ? resolve(io.cwd, source)
        : await snapshotNamed(source, dir, io);
      const restored = await Promise.allSettled(Array.from({ length: count }, () => Machine.restore(file)));
      const clones = restored.flatMap((clone) => (clone.status === "fulfilled" ? [clone.value] : []));
      try {
        const failed = restored.find((clone) => clone.status === "rejected");
        if (failed) throw failed.reason;
        const results = await Promise.all(
          clones.map((clone) => clone.exec(command, timeoutMs ? { timeoutMs } : {})),
        );
        let exitCode = 0;
        for (const [index, result] of results.entries()) {
          const heading = `== fork ${index + 1}: exit ${result.exitCode} ==\n`;
          io.stdout.write(heading + result.stdout);
          if (result.stderr) io.stderr.write(heading + result.stderr);
          if (exitCode === 0) exitCode = result.exitCode;
        }
        return exitCode;
      } finally {
        await Promise.all(clones.map((clone) => clone.stop()));
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
});
