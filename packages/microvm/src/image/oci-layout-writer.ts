import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { sha256Hex } from "../cache-dir.js";
import { type TarInput, writeTar } from "./tar.js";

/** The PATH every image the package builds runs with. */
export const IMAGE_PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The few files a root filesystem needs for `sh` and `id` to behave: users, groups, hostname. */
export function baseSystemFiles(): TarInput[] {
  const text = (path: string, content: string): TarInput => ({
    path,
    type: "file",
    data: new TextEncoder().encode(content),
  });
  return [
    text("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n"),
    text("etc/group", "root:x:0:\nnogroup:x:65534:\n"),
    text("etc/hostname", "atrium\n"),
  ];
}

export interface SingleLayerImage {
  /** Environment of the image's config (`KEY=value`). */
  env: readonly string[];
  cmd: readonly string[];
  /** gzip level of the layer (zlib's default when absent). */
  gzipLevel?: number;
}

/** Writes `inputs` as the one layer of an OCI image layout in `dir` (working dir `/root`). */
export async function writeSingleLayerImage(
  dir: string,
  inputs: readonly TarInput[],
  image: SingleLayerImage,
): Promise<void> {
  const layerTar = writeTar([...inputs]);
  const layer =
    image.gzipLevel === undefined ? gzipSync(layerTar) : gzipSync(layerTar, { level: image.gzipLevel });
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      config: { Env: image.env, Cmd: image.cmd, WorkingDir: "/root" },
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
  await writeOciLayout(dir, manifest, [config, layer]);
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
