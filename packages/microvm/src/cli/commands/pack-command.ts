import { resolve } from "node:path";
import { defaultCacheDir } from "../../cache-dir.js";
import { defaultStateDir } from "../../config/state-dir.js";
import { bootPack, importPack, packMachine } from "../../pack/pack-machine.js";
import type { PackRunPolicy } from "../../pack/pack-policy.js";
import { type CliCommand, type CliIo, parseCommandArgs, parseMs, UsageError } from "../cli-command.js";
import { MACHINE_SOURCE_OPTIONS, MACHINE_SOURCE_USAGE, machineConfig } from "../machine-source.js";
import { progressTo } from "../progress.js";
import { guestCommand, runStreamed, withTempDir } from "./run-command.js";

const USAGE = `Usage:
  atrium-vm pack create [options] [NAME] -o FILE
  atrium-vm pack run [options] FILE -- COMMAND [ARG...]
  atrium-vm pack import [options] FILE NAME

create   writes one file holding everything the machine boots: its config, the kernel, the
         initramfs with the guest agent, and its disk. NAME packs a stopped named machine with
         what its disk holds now; without NAME, --config/--image (or ./atrium-vm.toml) packs a
         fresh machine. Volumes cannot be packed.
run      verifies FILE (each section's checksum and the whole file's) and boots it as a
         throwaway machine on this host, which needs only QEMU; runs COMMAND; exits with its code.
import   verifies FILE and makes it the named machine NAME (then: atrium-vm start NAME).

A pack's config was written elsewhere, so run and import give it no network and bind none of
its ports unless asked; what is asked for can only narrow what the pack declares.

Options:
${MACHINE_SOURCE_USAGE}
  -o, --out FILE      the pack to write (create)
  -t, --timeout MS    kill COMMAND after MS milliseconds (run; exit code 124)
  --network           run, import: turn on the network the pack declares (its allow-list, if any)
  --allow-hosts LIST  run, import: with --network, only these HOST:PORT entries (comma-separated;
                      each must be in the pack's allow-list when it has one)
  --publish           run, import: with --network, bind the host ports the pack declares
  -h, --help          show this help
`;

const POLICY_OPTIONS = {
  network: { type: "boolean" },
  "allow-hosts": { type: "string" },
  publish: { type: "boolean" },
} as const;

/** The runner's narrowing of a pack (--network, --allow-hosts, --publish). */
function packPolicy(values: Record<string, string | boolean | undefined>): PackRunPolicy {
  const hosts = values["allow-hosts"];
  return {
    network: values.network === true,
    ...(typeof hosts === "string" ? { allowHosts: hosts.split(",").filter((host) => host !== "") } : {}),
    ports: values.publish === true,
  };
}

async function create(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(
    argv,
    { ...MACHINE_SOURCE_OPTIONS, out: { type: "string", short: "o" } },
    { min: 0, max: 1, what: "" },
  );
  if (!args) {
    io.stdout.write(USAGE);
    return 0;
  }
  const out = args.values.out;
  if (typeof out !== "string") throw new UsageError("missing -o FILE, the pack to write");
  const name = args.positionals[0];
  const common = {
    out: resolve(io.cwd, out),
    stateDir: defaultStateDir(io.env),
    cacheDir: defaultCacheDir(io.env),
    onProgress: progressTo(io),
  };
  if (name && (args.values.config || args.values.image))
    throw new UsageError("give a machine NAME or --config/--image, not both");
  const manifest = name
    ? await packMachine({ ...common, name })
    : await packMachine({ ...common, config: await machineConfig(args.values, io) });
  const stored = manifest.sections.reduce((sum, section) => sum + section.storedBytes, 0);
  io.stdout.write(
    `packed ${name ?? "machine"} into ${out} (${(stored / 1024 / 1024).toFixed(1)} MiB of sections)\n`,
  );
  return 0;
}

async function run(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(
    argv,
    { timeout: { type: "string", short: "t" }, ...POLICY_OPTIONS },
    { min: 1, max: 1, what: "the pack FILE" },
  );
  if (!args) {
    io.stdout.write(USAGE);
    return 0;
  }
  const command = guestCommand(args.rest);
  const timeoutMs = parseMs(args.values.timeout, "timeout");
  const file = resolve(io.cwd, args.positionals[0] as string);
  return withTempDir(async (dir) => {
    const machine = await bootPack(file, {
      dir,
      cacheDir: defaultCacheDir(io.env),
      onProgress: progressTo(io),
      policy: packPolicy(args.values),
    });
    try {
      return await runStreamed(machine, command, io, timeoutMs);
    } finally {
      await machine.stop();
    }
  });
}

async function importCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(argv, POLICY_OPTIONS, {
    min: 2,
    max: 2,
    what: "the pack FILE and a machine NAME",
  });
  if (!args) {
    io.stdout.write(USAGE);
    return 0;
  }
  const [file, name] = args.positionals as [string, string];
  progressTo(io)("verify");
  await importPack(resolve(io.cwd, file), name, {
    stateDir: defaultStateDir(io.env),
    policy: packPolicy(args.values),
  });
  io.stdout.write(`imported ${name}\n`);
  return 0;
}

export const packCommand: CliCommand = {
  name: "pack",
  summary: "pack a machine into one file (create), boot one (run), make one a named machine (import)",
  usage: USAGE,
  async run(argv, io) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === "--help" || sub === "-h") {
      io.stdout.write(USAGE);
      return sub === undefined ? 1 : 0;
    }
    if (sub === "create") return create(rest, io);
    if (sub === "run") return run(rest, io);
    if (sub === "import") return importCommand(rest, io);
    throw new UsageError(`unknown pack command ${JSON.stringify(sub)}: use create, run or import`);
  },
};
