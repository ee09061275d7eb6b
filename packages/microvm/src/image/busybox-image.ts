import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { APT_PACKAGE_OF, aptCommand } from "../apt-hint.js";
import { buildOnce, exists, sha256Hex } from "../cache-dir.js";
import { MissingDependencyError } from "../errors.js";
import { runCommand } from "../run-command.js";
import { baseSystemFiles, IMAGE_PATH_ENV, writeSingleLayerImage } from "./oci-layout-writer.js";
import type { TarInput } from "./tar.js";

const BUSYBOX_STATIC = "/bin/busybox";

/**
 * A test image built locally from Debian's busybox-static (no registry is reachable here): one
 * layer with busybox, a link per applet, /etc/passwd and the usual empty directories, written as
 * an OCI image layout directory, so it goes through the same importer as any other image.
 * Cached by the busybox binary's hash.
 */
export async function buildBusyboxImage(cacheDir: string, busyboxPath = BUSYBOX_STATIC): Promise<string> {
  if (!(await exists(busyboxPath))) {
    throw new MissingDependencyError(
      `${busyboxPath} is missing; install it with: ${aptCommand(APT_PACKAGE_OF.busybox)}`,
    );
  }
  const busybox = await readFile(busyboxPath);
  if (hasInterpreter(busybox)) {
    throw new MissingDependencyError(
      `${busyboxPath} is dynamically linked; the image needs the static one: ${aptCommand(APT_PACKAGE_OF.busybox)}`,
    );
  }
  const layoutDir = join(cacheDir, "images", `busybox-${sha256Hex(busybox).slice(0, 24)}`);
  return buildOnce(layoutDir, async (tmp) => {
    const list = await runCommand(busyboxPath, ["--list-full"]);
    const inputs: TarInput[] = [
      "bin",
      "sbin",
      "usr",
      "usr/bin",
      "usr/sbin",
      "etc",
      "root",
      "home",
      "dev",
      "proc",
      "sys",
      "run",
      "var",
      "var/tmp",
    ].map((path) => ({ path, type: "dir" as const }));
    inputs.push({ path: "tmp", type: "dir", mode: 0o1777 });
    inputs.push({ path: "bin/busybox", type: "file", mode: 0o755, data: busybox });
    for (const applet of list.stdout.split("\n").filter(Boolean)) {
      if (applet === "bin/busybox") continue;
      inputs.push({ path: applet, type: "symlink", linkName: "/bin/busybox" });
    }
    inputs.push(...baseSystemFiles());
    await writeSingleLayerImage(tmp, inputs, { env: [IMAGE_PATH_ENV, "HOME=/root"], cmd: ["/bin/sh"] });
  });
}

/** True for a dynamically linked ELF executable (it has a PT_INTERP program header). */
function hasInterpreter(elf: Buffer): boolean {
  if (elf.readUInt32BE(0) !== 0x7f454c46) return false;
  const phoff = Number(elf.readBigUInt64LE(32));
  const phentsize = elf.readUInt16LE(54);
  const phnum = elf.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) if (elf.readUInt32LE(phoff + i * phentsize) === 3) return true;
  return false;
}
