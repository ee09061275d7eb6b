import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { CONFIG_FILE_NAME, loadVmConfig, parseVmConfig, type VmConfig } from "../config/vm-config.js";
import { UsageError } from "./cli-command.js";

/** The options every command that makes a machine takes. */
export const MACHINE_SOURCE_OPTIONS = {
  config: { type: "string", short: "c" },
  image: { type: "string", short: "i" },
} as const;

export const MACHINE_SOURCE_USAGE = `  -c, --config FILE   an atrium-vm.toml (default: ./${CONFIG_FILE_NAME} when it exists)
  -i, --image IMAGE   an OCI layout directory, a docker-save tar, or "busybox" (instead of a config)`;

/** The machine's config: --image alone, --config, or ./atrium-vm.toml. */
export async function machineConfig(
  values: Record<string, string | boolean | undefined>,
  cwd: string,
): Promise<VmConfig> {
  const image = values.image as string | undefined;
  const config = values.config as string | undefined;
  if (image && config) throw new UsageError("give --config or --image, not both");
  if (image) return parseVmConfig({ image: image === "busybox" ? image : resolve(cwd, image) }, "--image");
  if (config) return loadVmConfig(resolve(cwd, config));
  const local = join(cwd, CONFIG_FILE_NAME);
  if (existsSync(local)) return loadVmConfig(local);
  throw new UsageError(`no machine given: pass --image or --config, or run where ${CONFIG_FILE_NAME} is`);
}
