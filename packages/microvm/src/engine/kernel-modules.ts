import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { MissingDependencyError } from "../errors.js";

/**
 * Modules the guest needs, in load order (dependencies first), resolved from the kernel's own
 * `modules.dep`. Debian's kernel builds virtio, ext4 and their helpers as modules, and the boot
 * initramfs has no modprobe: the host resolves the order once and the guest init loads the list.
 */
export async function resolveModules(modulesDir: string, names: readonly string[]): Promise<string[]> {
  const dep = await readFile(join(modulesDir, "modules.dep"), "utf8");
  const byName = new Map<string, { path: string; deps: string[] }>();
  for (const line of dep.split("\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const path = line.slice(0, colon);
    const deps = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    byName.set(moduleName(path), { path, deps });
  }
  const builtin = new Set(
    (await readFile(join(modulesDir, "modules.builtin"), "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map(moduleName),
  );
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const entry = byName.get(name);
    if (!entry) {
      if (builtin.has(name)) return;
      throw new MissingDependencyError(
        `kernel module ${name} is neither in ${modulesDir}/modules.dep nor built in`,
      );
    }
    // modules.dep lists a module's dependencies so that the last must be loaded first.
    for (const depPath of [...entry.deps].reverse()) visit(moduleName(depPath));
    order.push(entry.path);
  };
  for (const name of names) visit(name.replaceAll("-", "_"));
  return order;
}

function moduleName(path: string): string {
  const file = path.slice(path.lastIndexOf("/") + 1);
  return file.replace(/\.ko(\.xz|\.zst|\.gz)?$/, "").replaceAll("-", "_");
}

/** A module file's bytes, decompressed when the distribution compresses them (.ko.xz, .ko.zst). */
export async function readModule(modulesDir: string, relativePath: string): Promise<Uint8Array> {
  return withoutSignature(await readModuleFile(modulesDir, relativePath));
}

const SIGNATURE_MAGIC = Buffer.from("~Module signature appended~\n");

/**
 * The module without the signature Debian appends. The guest kernel does not require one
 * (CONFIG_MODULE_SIG_FORCE is off, and a guest has no secure boot), and checking it costs a
 * SHA-256 over the module and an RSA verify per module, tens of milliseconds of every boot under
 * TCG. Nothing is lost: the modules come from the host's own kernel package, and the guest is
 * already inside the boundary (its root could load an unsigned module anyway).
 */
export function withoutSignature(module: Uint8Array): Uint8Array {
  const bytes = Buffer.from(module.buffer, module.byteOffset, module.byteLength);
  const magicAt = bytes.length - SIGNATURE_MAGIC.length;
  // struct module_signature: 12 bytes before the magic, its last four the signature's length.
  if (magicAt < 12 || !bytes.subarray(magicAt).equals(SIGNATURE_MAGIC)) return module;
  const signatureLength = bytes.readUInt32BE(magicAt - 4);
  const end = magicAt - 12 - signatureLength;
  return end > 0 ? bytes.subarray(0, end) : module;
}

async function readModuleFile(modulesDir: string, relativePath: string): Promise<Uint8Array> {
  const path = join(modulesDir, relativePath);
  if (relativePath.endsWith(".ko")) return readFile(path);
  const tool = relativePath.endsWith(".xz") ? "xz" : relativePath.endsWith(".zst") ? "zstd" : "gzip";
  const { spawn } = await import("node:child_process");
  return new Promise((resolve, reject) => {
    const child = spawn(tool, ["-dc", path], { stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", (error) =>
      reject(new MissingDependencyError(`${tool} is needed to read ${path}: ${error.message}`)),
    );
    child.on("close", (code) =>
      code === 0
        ? resolve(Buffer.concat(chunks))
        : reject(new MissingDependencyError(`${tool} -dc ${path} failed (exit ${code})`)),
    );
  });
}
