import { resolve } from "node:path";
import { type CliGroup, defineCommand, UsageError } from "@atrium/kit/cli";
import { defaultCacheDir } from "../../cache-dir.js";
import { defaultStateDir } from "../../config/state-dir.js";
import { bootPack, importPack, packMachine } from "../../pack/pack-machine.js";
import type { PackRunPolicy } from "../../pack/pack-policy.js";
import { MACHINE_SOURCE_OPTIONS, machineConfig } from "../machine-source.js";
import { progressTo } from "../progress.js";
import { guestCommand, runStreamed, TIMEOUT_OPTION, timeoutOption, withTempDir } from "./run-command.js";

/** The runner's narrowing of a pack: what `run` and `import` may turn on, never more than it declares. */
const POLICY_OPTIONS = {
  network: { type: "boolean", help: "turn on the network the pack declares (its allow-list, if any)" },
  "allow-hosts": {
    type: "string",
    value: "LIST",
    help: "with --network, only these HOST:PORT entries (comma-separated;\neach must be in the pack's allow-list when it has one)",
  },
  publish: { type: "boolean", help: "with --network, bind the host ports the pack declares" },
} as const;

const POLICY_NOTE =
  "A pack's config was written elsewhere, so run and import give it no network and bind none of\nits ports unless asked; what is asked for can only narrow what the pack declares.";

function packPolicy(values: { network?: boolean; "allow-hosts"?: string; publish?: boolean }): PackRunPolicy {
  const hosts = values["allow-hosts"];
  return {
    network: values.network === true,
    ...(hosts === undefined ? {} : { allowHosts: hosts.split(",").filter((host) => host !== "") }),
    ports: values.publish === true,
  };
}

const create = defineCommand({
  name: "create",
  summary: "write a machine into one file",
  usage: "[options] [NAME] -o FILE",
  description:
    "Writes one file holding everything the machine boots: its config, the kernel, the initramfs\nwith the guest agent, and its disk. NAME packs a stopped named machine with what its disk holds\nnow; without NAME, --config/--image (or ./atrium-vm.toml) packs a fresh machine. Volumes\ncannot be packed. --snapshot adds a snapshot of the machine (atrium-vm snapshot, taken with\nthe network off), which pack run then resumes instead of booting.",
  options: {
    ...MACHINE_SOURCE_OPTIONS,
    out: { type: "string", short: "o", value: "FILE", help: "the pack to write" },
    snapshot: {
      type: "string",
      value: "SNAPSHOT",
      help: "a snapshot of this machine for pack run to resume",
    },
  },
  positionals: { max: 1 },
  async run({ values, positionals }, io) {
    const { out } = values;
    if (out === undefined) throw new UsageError("missing -o FILE, the pack to write");
    const [name] = positionals;
    const common = {
      out: resolve(io.cwd, out),
      stateDir: defaultStateDir(io.env),
      cacheDir: defaultCacheDir(io.env),
      onProgress: progressTo(io),
      ...(values.snapshot !== undefined ? { snapshot: resolve(io.cwd, values.snapshot) } : {}),
    };
    if (name && (values.config || values.image))
      throw new UsageError("give a machine NAME or --config/--image, not both");
    const manifest = name
      ? await packMachine({ ...common, name })
      : await packMachine({ ...common, config: await machineConfig(values, io) });
    const stored = manifest.sections.reduce((sum, section) => sum + section.storedBytes, 0);
    io.stdout.write(
      `packed ${name ?? "machine"} into ${out} (${(stored / 1024 / 1024).toFixed(1)} MiB of sections)\n`,
    );
    return 0;
  },
});

const run = defineCommand({
  name: "run",
  summary: "boot a pack as a throwaway machine and run one command",
  usage: "[options] FILE -- COMMAND [ARG...]",
  description: `Verifies FILE (each section's checksum and the whole file's) and boots it as a throwaway
machine on this host, which needs only QEMU; runs COMMAND; exits with its code. A pack that
carries a snapshot resumes where it was packed, unless --fresh.

${POLICY_NOTE}`,
  options: {
    ...TIMEOUT_OPTION,
    ...POLICY_OPTIONS,
    fresh: { type: "boolean", help: "boot the pack afresh even when it carries a snapshot" },
  },
  positionals: { min: 1, max: 1, names: "the pack FILE" },
  rest: true,
  async run({ values, positionals, rest }, io) {
    const command = guestCommand(rest);
    const timeoutMs = timeoutOption(values.timeout);
    const file = resolve(io.cwd, positionals[0] as string);
    return withTempDir(async (dir) => {
      const machine = await bootPack(file, {
        dir,
        cacheDir: defaultCacheDir(io.env),
        onProgress: progressTo(io),
        policy: packPolicy(values),
        fresh: values.fresh === true,
      });
      try {
        return await runStreamed(machine, command, io, timeoutMs);
      } finally {
        await machine.stop();
      }
    });
  },
});

const importPackCommand = defineCommand({
  name: "import",
  summary: "make a pack a named machine",
  usage: "[options] FILE NAME",
  description: `Verifies FILE and makes it the named machine NAME (then: atrium-vm start NAME).

${POLICY_NOTE}`,
  options: POLICY_OPTIONS,
  positionals: { min: 2, max: 2, names: "the pack FILE and a machine NAME" },
  async run({ values, positionals }, io) {
    const [file, name] = positionals as [string, string];
    progressTo(io)("verify");
    await importPack(resolve(io.cwd, file), name, {
      stateDir: defaultStateDir(io.env),
      policy: packPolicy(values),
    });
    io.stdout.write(`imported ${name}\n`);
    return 0;
  },
});

export const packCommand: CliGroup = {
  name: "pack",
  summary: "pack a machine into one file (create), boot one (run), make one a named machine (import)",
  description: "One file that boots anywhere QEMU runs: a machine's config, kernel, initramfs and disk.",
  commands: [create, run, importPackCommand],
};
