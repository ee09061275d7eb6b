import { createHash } from "node:crypto";
import { chmodSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "@atrium/spec";
import { runsFromSource } from "../package-files/package-file.js";

export interface SandboxProgramFiles {
  /** `import.meta.url` of the module asking: it tells whether the package runs built or from source. */
  from: string;
  /** Each program file by its name (`python-sandbox.mjs`), as a TypeScript source relative to `from`. */
  sources: Readonly<Record<string, string>>;
  /**
   * The folder, relative to `from` in a build, where those names are shipped as bundles; or
   * several, tried in order (code bundled into `dist/` and `dist/cli/` alike).
   */
  builtDir: string | readonly string[];
}

const bundled = new Map<string, Promise<string>>();

/**
 * The folder of files a sandboxed process runs (see `OsSandboxProgram.dir`): self-contained
 * ESM bundles that import nothing but Node's built-ins, since the sandbox sees no
 * `node_modules`. A built package ships them (a missing one is an error naming it); from
 * TypeScript sources (tests, `tsx`) they are bundled with esbuild once per process into a
 * content-addressed temporary folder, as the sandbox may not start a compiler's process.
 */
export function sandboxProgramDir(files: SandboxProgramFiles): Promise<string> {
  if (!runsFromSource(files.from)) {
    const dirs = (typeof files.builtDir === "string" ? [files.builtDir] : files.builtDir).map((dir) =>
      fileURLToPath(new URL(dir, files.from)),
    );
    const names = Object.keys(files.sources);
    const found = dirs.find((dir) => names.every((name) => existsSync(join(dir, name))));
    if (found) return Promise.resolve(found);
    const missing = names.map((name) => join(dirs[0] ?? "", name)).filter((path) => !existsSync(path));
    return Promise.reject(
      new ConfigError(
        `the sandbox's program files are missing (${missing.join(", ")}); the package was built or packed without them`,
      ),
    );
  }
  const key = JSON.stringify([files.from, files.sources]);
  let dir = bundled.get(key);
  if (!dir) {
    dir = bundleSources(files);
    bundled.set(key, dir);
    dir.catch(() => bundled.delete(key));
  }
  return dir;
}

/**
 * The temporary folder is shared with every user of the host: one that another user made, or
 * can write to, could hold a planted program under the name this one is about to run.
 */
function assertOwnedByUs(dir: string): void {
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) {
    throw new ConfigError(
      `${dir} is not a folder of this user's that only it can write to; remove it and try again`,
    );
  }
}

async function bundleSources(files: SandboxProgramFiles): Promise<string> {
  const esbuild = await import("esbuild");
  const outputs: [string, Uint8Array][] = [];
  for (const [name, source] of Object.entries(files.sources)) {
    const result = await esbuild.build({
      entryPoints: [fileURLToPath(new URL(source, files.from))],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      write: false,
      conditions: ["@atrium/source"],
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.contents;
    if (!code) throw new ConfigError(`esbuild produced nothing for ${source}`);
    outputs.push([name, code]);
  }
  const hash = createHash("sha256");
  for (const [name, code] of outputs) hash.update(name).update(code);
  const parent = join(tmpdir(), `atrium-sandbox-programs-${process.getuid?.() ?? "user"}`);
  mkdirSync(parent, { recursive: true, mode: 0o755 });
  assertOwnedByUs(parent);
  const dir = join(parent, hash.digest("hex").slice(0, 16));
  if (existsSync(dir)) return dir;
  // Written aside and renamed, so a concurrent process never runs a half-written folder.
  const staging = `${dir}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { mode: 0o755 });
  chmodSync(staging, 0o755);
  for (const [name, code] of outputs) writeFileSync(join(staging, name), code, { mode: 0o644 });
  try {
    renameSync(staging, dir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return dir;
}
