import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { ConfigError } from "@atrium/spec";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { escapesBase, refuseHostPath } from "./host-path-policy.js";

/** The file name the CLI looks for in the working directory. */
export const CONFIG_FILE_NAME = "atrium-vm.toml";

const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const hostPattern = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** Memory in MiB: a number, or a size such as "512M" or "2G" (converted first, then range-checked). */
const memorySchema = z.preprocess(
  (value) => {
    if (typeof value !== "string" || !/^\d+\s*[MG]i?B?$/i.test(value)) return value;
    const amount = Number.parseInt(value, 10);
    return /g/i.test(value) ? amount * 1024 : amount;
  },
  z
    .number({ error: 'a number of MiB or a size such as "512M" or "2G"' })
    .int("a whole number of MiB")
    .min(64, "at least 64 MiB")
    .max(65536, "at most 64 GiB"),
);

const volumeSchema = z.strictObject({
  host: z.string().regex(/^[^,]+$/, "a host directory (its path may not contain a comma)"),
  guest: z.string().regex(/^\/[^\s,]*$/, "an absolute path in the guest, without spaces or commas"),
  readonly: z.boolean().default(false),
  /** Share a path the host-path rules refuse (a system directory, one outside the config's directory). */
  unsafeAllowHostPath: z.boolean().optional(),
});

const portSchema = z.strictObject({
  host: z.number().int().min(1).max(65535),
  guest: z.number().int().min(1).max(65535),
});

export const vmConfigSchema = z
  .strictObject({
    /** An OCI image layout directory, a `docker save` tar, or "busybox" (built locally). */
    image: z.string().min(1, 'an OCI layout directory, a docker-save tar or "busybox"'),
    cpus: z.number().int().min(1, "at least 1").max(64, "at most 64").default(1),
    memory: memorySchema.default(256),
    env: z.record(z.string().regex(envName, "a variable name such as FOO_BAR"), z.string()).default({}),
    workdir: z.string().regex(/^\//, "an absolute path in the guest").optional(),
    init: z.array(z.string().min(1)).default([]),
    volumes: z.array(volumeSchema).default([]),
    ports: z.array(portSchema).default([]),
    network: z
      .strictObject({
        enabled: z.boolean().default(false),
        allowHosts: z
          .array(z.string().regex(hostPattern, 'a host name or address, optionally with ":port"'))
          .default([]),
      })
      .default({ enabled: false, allowHosts: [] }),
  })
  .superRefine((config, ctx) => {
    if (config.ports.length > 0 && !config.network.enabled) {
      ctx.addIssue({
        code: "custom",
        path: ["ports"],
        message: "ports need the network on: set network.enabled = true",
      });
    }
  });

/** A validated machine configuration (the file's shape, defaults filled in). */
export type VmConfig = z.output<typeof vmConfigSchema>;
export type VmConfigInput = z.input<typeof vmConfigSchema>;

/**
 * The TOML file's snake_case keys and the TypeScript API's camelCase ones. Both spellings are
 * read everywhere (a pack or a machine record written before the API was camelCase stores the
 * file's); messages name a key the way the input being read spells it.
 */
const FILE_SPELLING: Readonly<Record<string, string>> = {
  allow_hosts: "allowHosts",
  unsafe_allow_host_path: "unsafeAllowHostPath",
};
const API_SPELLING = Object.fromEntries(Object.entries(FILE_SPELLING).map(([file, api]) => [api, file]));

/**
 * Validates a config object; the error names each offending key (`network.allowHosts.0: ...`,
 * or `network.allow_hosts.0: ...` with `spelling: "file"`).
 */
export function parseVmConfig(
  value: unknown,
  source = "machine config",
  spelling: "api" | "file" = "api",
): VmConfig {
  const result = vmConfigSchema.safeParse(toApiSpelling(value));
  if (result.success) return result.data;
  const shown = (key: PropertyKey) =>
    spelling === "file" ? (API_SPELLING[String(key)] ?? String(key)) : String(key);
  const lines = result.error.issues.map(
    (issue) => `${issue.path.map(shown).join(".") || "(top level)"}: ${issueMessage(issue)}`,
  );
  throw new ConfigError(`${source}: ${lines.join("; ")}`);
}

/** `network.allow_hosts` and `volumes[].unsafe_allow_host_path` under their camelCase names. */
function toApiSpelling(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const config: Record<string, unknown> = { ...value };
  if (isRecord(config.network)) config.network = renamed(config.network);
  if (Array.isArray(config.volumes))
    config.volumes = config.volumes.map((v) => (isRecord(v) ? renamed(v) : v));
  return config;
}

function renamed(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(object)) {
    const api = FILE_SPELLING[key];
    out[api !== undefined && !Object.hasOwn(object, api) ? api : key] = entry;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys")
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
  return issue.message;
}

/**
 * Reads an `atrium-vm.toml`. Relative paths in it (the image, volume host directories) are
 * resolved against the file's directory, so a config means the same from any working directory.
 */
export async function loadVmConfig(path: string): Promise<VmConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(
      `cannot read ${path}: ${(error as Error).message}; create it or pass another config file`,
    );
  }
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid TOML: ${(error as Error).message}`);
  }
  const config = parseVmConfig(data, path, "file");
  const base = dirname(resolve(path));
  for (const [index, volume] of config.volumes.entries()) {
    if (escapesBase(volume.host, base) && !volume.unsafeAllowHostPath) {
      refuseHostPath(
        index,
        `${JSON.stringify(volume.host)} climbs out of the config file's directory (${base}) to ${resolve(base, volume.host)}`,
      );
    }
  }
  const local = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
  return {
    ...config,
    image: config.image === "busybox" ? config.image : local(config.image),
    volumes: config.volumes.map((volume) => ({ ...volume, host: local(volume.host) })),
  };
}
