import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { buildOnce, exists, sha256Hex } from "../cache-dir.js";
import { APT_PACKAGE_OF, aptCommand } from "../engine/apt-hint.js";
import { runCommand } from "../run-command.js";
import { MissingDependencyError } from "../vm-errors.js";
import { type TarInput, writeTar } from "./tar.js";

const BUSYBOX_STATIC = "/bin/busybox";
const PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

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
    const text = (path: string, content: string) =>
      inputs.push({ path, type: "file", data: new TextEncoder().encode(content) });
    text("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n");
    text("etc/group", "root:x:0:\nnogroup:x:65534:\n");
    text("etc/hostname", "atrium\n");
    const layerTar = writeTar(inputs);
    const layer = gzipSync(layerTar);
    const config = Buffer.from(
      JSON.stringify({
        architecture: "amd64",
        os: "linux",
        config: { Env: [PATH_ENV, "HOME=/root"], Cmd: ["/bin/sh"], WorkingDir: "/root" },
        rootfs: { type: "layers", diff_ids: [`sha256:${sha256Hex(layerTar)}`] },
      }),
    );
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: {
          mediaType: "application/vnd.oci.image.config.v1+json",
          digest: `sha256:${sha256Hex(config)}`,
          size: config.byteLength,
        },
        layers: [
          {
            mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
            digest: `sha256:${sha256Hex(layer)}`,
            size: layer.byteLength,
          },
        ],
      }),
    );
    await writeOciLayout(tmp, manifest, [config, layer]);
  });
}

/** Writes an OCI image layout: the blobs, an index naming the manifest, and the `oci-layout` marker. */
export async function writeOciLayout(
  dir: string,
  manifest: Uint8Array,
  blobs: readonly Uint8Array[],
): Promise<void> {
  await mkdir(join(dir, "blobs", "sha256"), { recursive: true });
  for (const blob of [manifest, ...blobs])
    await writeFile(join(dir, "blobs", "sha256", sha256Hex(blob)), blob);
  await writeFile(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
  await writeFile(
    join(dir, "index.json"),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          digest: `sha256:${sha256Hex(manifest)}`,
          size: manifest.byteLength,
        },
      ],
    }),
  );
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
