import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { type CliIo, UsageError } from "@atrium/kit/cli";
import { CONFIG_FILE_NAME, loadVmConfig, parseVmConfig, type VmConfig } from "../config/vm-config.js";

/** The options every command that makes a machine takes. */
export const MACHINE_SOURCE_OPTIONS = {
  config: {
    type: "string",
    short: "c",
    value: "FILE",
    help: `an atrium-vm.toml (default: ./${CONFIG_FILE_NAME} when it exists; the\nfile used is always named on stderr)`,
  },
  image: {
    type: "string",
    short: "i",
    value: "IMAGE",
    help: 'an OCI layout directory, a docker-save tar, or "busybox" (instead of a config)',
  },
} as const;

/**
 * The machine's config: --image alone, --config, or ./atrium-vm.toml. The file it loads is named
 * on stderr every time, ATRIUM_VM_QUIET or not: a config decides volumes, network and ports, so
 * one picked up from the working directory (a checked-out repository's, say) must never apply
 * unseen. Requiring --config would be safer still but breaks the compose-style habit of running
 * where the file is; naming it keeps the habit and makes the choice visible.
 */
export async function machineConfig(
  values: { config?: string; image?: string },
  io: Pick<CliIo, "cwd" | "stderr">,
): Promise<VmConfig> {
  const cwd = io.cwd;
  const { image, config } = values;
  if (image && config) throw new UsageError("give --config or --image, not both");
  if (image) return parseVmConfig({ image: image === "busybox" ? image : resolve(cwd, image) }, "--image");
  if (config) {
    const path = resolve(cwd, config);
    io.stderr.write(`atrium-vm: using config ${path}\n`);
    return loadVmConfig(path);
  }
  const local = join(cwd, CONFIG_FILE_NAME);
  if (existsSync(local)) {
    io.stderr.write(
      `atrium-vm: using ./${CONFIG_FILE_NAME} from the current directory (${local}); pass --config or --image to choose\n`,
    );
    return loadVmConfig(local);
  }
  throw new UsageError(`no machine given: pass --image or --config, or run where ${CONFIG_FILE_NAME} is`);
}
