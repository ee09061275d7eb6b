import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { sha256Hex } from "../cache-dir.js";
import { ImageFormatError } from "../errors.js";
import { readTar, type TarEntry } from "./tar.js";

/** What a machine takes from an image's config: the defaults of every exec. */
export interface ImageRuntimeConfig {
  env: string[];
  workdir: string;
  cmd: string[];
}

/** An image read from disk: its identity and its layers' bytes, base layer first. */
export interface LoadedImage {
  /**
   * The root filesystem's cache key: sha256 of the manifest (OCI, whose blobs are checked
   * against their digests), or for a docker save tar the sha256 of its config's and each layer
   * member's sha256 (one per line; the layers are checked against the config's diff_ids).
   */
  digest: string;
  config: ImageRuntimeConfig;
  /** Uncompressed layer tars, base first. */
  layers: () => AsyncGenerator<{ index: number; tar: Uint8Array }>;
}

interface Descriptor {
  mediaType?: string;
  digest: string;
}

/**
 * Reads an OCI image layout directory (`oci-layout` + `index.json` + `blobs/`) or a `docker save`
 * tar (`manifest.json` naming the config and the layer tars). The first manifest for linux/amd64
 * (or the only one) is used.
 */
export async function loadImage(source: string, maxLayerBytes: number): Promise<LoadedImage> {
  const info = await stat(source).catch(() => undefined);
  if (!info)
    throw new ImageFormatError(
      `image ${source} does not exist; give an OCI image layout directory or a \`docker save\` tar`,
    );
  if (info.isDirectory()) return loadOciLayout(source, maxLayerBytes);
  return loadDockerSave(source, maxLayerBytes);
}

async function loadOciLayout(dir: string, maxLayerBytes: number): Promise<LoadedImage> {
  const readBlob = async (descriptor: Descriptor): Promise<Buffer> => {
    const [algorithm, hex] = descriptor.digest.split(":");
    if (algorithm !== "sha256" || !hex || !/^[0-9a-f]{64}$/.test(hex)) {
      throw new ImageFormatError(`${dir}: unsupported digest ${descriptor.digest} (only sha256 is read)`);
    }
    const path = join(dir, "blobs", "sha256", hex);
    const blob = await readFile(path).catch(() => {
      throw new ImageFormatError(`${dir}: blob ${descriptor.digest} is missing (${path})`);
    });
    if (sha256Hex(blob) !== hex)
      throw new ImageFormatError(
        `${dir}: blob ${descriptor.digest} does not match its digest; the layout is corrupt`,
      );
    return blob;
  };
  const index = await readJson(join(dir, "index.json"), `${dir} is not an OCI image layout (index.json)`);
  let manifestDescriptor = pickManifest(index, dir);
  let manifest = JSON.parse((await readBlob(manifestDescriptor)).toString("utf8"));
  // A nested index (multi-platform image): pick from it.
  while (Array.isArray(manifest.manifests)) {
    manifestDescriptor = pickManifest(manifest, dir);
    manifest = JSON.parse((await readBlob(manifestDescriptor)).toString("utf8"));
  }
  if (!manifest.config || !Array.isArray(manifest.layers))
    throw new ImageFormatError(`${dir}: manifest ${manifestDescriptor.digest} has no config or layers`);
  const config = JSON.parse((await readBlob(manifest.config)).toString("utf8"));
  const layers = manifest.layers as Descriptor[];
  return {
    digest: manifestDescriptor.digest.replace("sha256:", ""),
    config: runtimeConfig(config),
    layers: async function* () {
      for (const [index, layer] of layers.entries()) {
        yield {
          index,
          tar: decompressLayer(
            await readBlob(layer),
            layer.mediaType ?? "",
            `${dir} layer ${index}`,
            maxLayerBytes,
          ),
        };
      }
    },
  };
}

function pickManifest(
  index: { manifests?: (Descriptor & { platform?: { os?: string; architecture?: string } })[] },
  where: string,
): Descriptor {
  const manifests = index.manifests ?? [];
  if (manifests.length === 0) throw new ImageFormatError(`${where}: the index lists no manifests`);
  return (
    manifests.find(
      (m) => !m.platform || (m.platform.os === "linux" && m.platform.architecture === "amd64"),
    ) ?? (manifests[0] as Descriptor)
  );
}

async function loadDockerSave(tarPath: string, maxLayerBytes: number): Promise<LoadedImage> {
  const archive = await readFile(tarPath);
  const entries = new Map<string, TarEntry>();
  for (const entry of readTar(archive, tarPath)) entries.set(entry.path.replace(/^\.\//, ""), entry);
  const manifestEntry = entries.get("manifest.json");
  if (!manifestEntry)
    throw new ImageFormatError(
      `${tarPath} is neither an OCI layout directory nor a \`docker save\` tar (no manifest.json inside)`,
    );
  const manifest = JSON.parse(new TextDecoder().decode(manifestEntry.data)) as {
    Config: string;
    Layers: string[];
  }[];
  const first = manifest[0];
  if (!first?.Config || !Array.isArray(first.Layers))
    throw new ImageFormatError(`${tarPath}: manifest.json names no Config and Layers`);
  const member = (name: string) => {
    const entry = entries.get(name);
    if (!entry)
      throw new ImageFormatError(
        `${tarPath}: ${name} is named by manifest.json but missing from the archive`,
      );
    return entry.data;
  };
  const configBytes = member(first.Config);
  const config = parseJson(configBytes, `${tarPath}: ${first.Config}`) as Parameters<
    typeof runtimeConfig
  >[0] & {
    rootfs?: { diff_ids?: unknown };
  };
  // Nothing in a `docker save` tar is addressed by its digest, so the config's diff_ids (the
  // sha256 of each uncompressed layer) are what ties the layers to the image: each layer is
  // checked against its diff_id before it is applied.
  const diffIds = config.rootfs?.diff_ids;
  if (
    !Array.isArray(diffIds) ||
    diffIds.length !== first.Layers.length ||
    !diffIds.every((id) => typeof id === "string" && /^sha256:[0-9a-f]{64}$/.test(id))
  )
    throw new ImageFormatError(
      `${tarPath}: ${first.Config} must list one sha256 rootfs.diff_ids entry per layer (${first.Layers.length}); the layers cannot be verified without them`,
    );
  // The cache key covers the bytes of every layer, not the config alone: a tar with the real
  // image's config and other layers must never share (or poison) the real image's cache entry.
  const digest = sha256Hex(
    [sha256Hex(configBytes), ...first.Layers.map((name) => sha256Hex(member(name)))].join("\n"),
  );
  return {
    digest,
    config: runtimeConfig(config),
    layers: async function* () {
      for (const [index, name] of first.Layers.entries()) {
        const tar = decompressLayer(member(name), "", `${tarPath} layer ${name}`, maxLayerBytes);
        const actual = `sha256:${sha256Hex(tar)}`;
        if (actual !== diffIds[index])
          throw new ImageFormatError(
            `${tarPath}: layer ${name} is ${actual} but ${first.Config} says ${diffIds[index]}; the image is corrupt or tampered with, refused`,
          );
        yield { index, tar };
      }
    },
  };
}

function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new ImageFormatError(`${what} is not JSON: ${(error as Error).message}`);
  }
}

function decompressLayer(blob: Uint8Array, mediaType: string, what: string, maxBytes: number): Uint8Array {
  if (mediaType.endsWith("+zstd"))
    throw new ImageFormatError(
      `${what}: zstd-compressed layers are not supported yet; re-save the image with gzip layers`,
    );
  const gzip = blob[0] === 0x1f && blob[1] === 0x8b;
  try {
    return gzip ? gunzipSync(blob, { maxOutputLength: maxBytes }) : blob;
  } catch (error) {
    throw new ImageFormatError(`${what}: could not decompress (${(error as Error).message})`);
  }
}

function runtimeConfig(config: {
  config?: { Env?: string[]; WorkingDir?: string; Cmd?: string[]; Entrypoint?: string[] };
}): ImageRuntimeConfig {
  const c = config.config ?? {};
  return { env: c.Env ?? [], workdir: c.WorkingDir || "/", cmd: [...(c.Entrypoint ?? []), ...(c.Cmd ?? [])] };
}

async function readJson(path: string, what: string): Promise<{ manifests?: Descriptor[] }> {
  try {
    return JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new ImageFormatError(`${what}: ${(error as Error).message}`);
  }
}
