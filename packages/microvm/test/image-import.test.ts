import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../src/cache-dir.js";
import { applyLayer } from "../src/image/apply-layer.js";
import { readTar, type TarInput, writeTar } from "../src/image/tar.js";
import { ImageFormatError, importImage, writeOciLayout } from "../src/index.js";
import { debugfs, SKIP_DEBUGFS } from "./debugfs.js";

const text = (value: string) => new TextEncoder().encode(value);

// Base layer, then a layer that deletes one file (whiteout), empties a directory of what the
// base put there (opaque marker) and replaces a file.
const BASE: TarInput[] = [
  { path: "etc", type: "dir" },
  { path: "etc/keep", type: "file", data: text("base\n") },
  { path: "etc/gone", type: "file", data: text("deleted later\n") },
  { path: "opaque", type: "dir" },
  { path: "opaque/old", type: "file", data: text("old\n") },
  { path: "bin", type: "dir" },
  { path: "bin/tool", type: "file", mode: 0o755, data: text("#!/bin/sh\n") },
  { path: "bin/alias", type: "symlink", linkName: "tool" },
];
const TOP: TarInput[] = [
  { path: "etc/.wh.gone", type: "file" },
  { path: "opaque/.wh..wh..opq", type: "file" },
  { path: "opaque/new", type: "file", data: text("new\n") },
  { path: "etc/keep", type: "file", data: text("top\n") },
];

/** A `docker save` config whose rootfs.diff_ids are the given (uncompressed) layers' digests. */
function dockerConfig(config: object, layers: Uint8Array[]): Uint8Array {
  return text(
    JSON.stringify({
      config,
      rootfs: { type: "layers", diff_ids: layers.map((layer) => `sha256:${sha256Hex(layer)}`) },
    }),
  );
}

/** A `docker save` tar: manifest.json, config.json and l1/layer.tar, l2/layer.tar ... */
function dockerSave(config: Uint8Array, layers: Uint8Array[]): Uint8Array {
  const names = layers.map((_, index) => `l${index + 1}/layer.tar`);
  return writeTar([
    {
      path: "manifest.json",
      type: "file",
      data: text(JSON.stringify([{ Config: "config.json", Layers: names }])),
    },
    { path: "config.json", type: "file", data: config },
    ...layers.flatMap((layer, index): TarInput[] => [
      { path: `l${index + 1}`, type: "dir" },
      { path: names[index] as string, type: "file", data: layer },
    ]),
  ]);
}

let work: string;
let cacheDir: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "atrium-vm-image-"));
  cacheDir = join(work, "cache");
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** `ls -p` rows as "mode uid gid name size", without inode numbers and the . and .. entries. */
function listing(disk: string, dir: string): string[] {
  return debugfs(disk, `ls -p ${dir}`)
    .split("\n")
    .filter(Boolean)
    .map((row) => row.split("/").slice(2, 7).join(" "))
    .filter((row) => !/ \.\.? /.test(` ${row.split(" ")[3]} `));
}

/**
 * The uid and gid of an imported image's files: the image's (0 0 here) when the import runs as
 * root; otherwise the importing user's, because only root can give the staged files their
 * owners (lchown) and `mke2fs -d` copies the staged owners into the disk.
 */
const IMPORTED_OWNER = process.getuid?.() === 0 ? "0 0" : `${process.getuid?.()} ${process.getgid?.()}`;

async function expectMergedLayers(disk: string): Promise<void> {
  const owner = IMPORTED_OWNER;
  expect(listing(disk, "/etc")).toEqual([`100644 ${owner} keep 4`]);
  expect(debugfs(disk, "cat /etc/keep")).toBe("top\n");
  expect(listing(disk, "/opaque")).toEqual([`100644 ${owner} new 4`]);
  expect(listing(disk, "/bin").sort()).toEqual([`100755 ${owner} tool 10`, `120777 ${owner} alias 4`].sort());
}

describe("importImage", () => {
  it.skipIf(SKIP_DEBUGFS)(
    "imports an OCI layout, applying layers in order with whiteouts and opaque directories",
    async () => {
      const layers = [gzipSync(writeTar(BASE)), writeTar(TOP)];
      const config = text(
        JSON.stringify({ config: { Env: ["A=1"], WorkingDir: "/etc", Cmd: ["/bin/tool"] } }),
      );
      const manifest = text(
        JSON.stringify({
          schemaVersion: 2,
          config: { digest: `sha256:${sha256Hex(config)}`, size: config.byteLength },
          layers: [
            {
              mediaType: "application/vnd.oci.image.layer.v1.tar+gzip",
              digest: `sha256:${sha256Hex(layers[0] as Uint8Array)}`,
            },
            {
              mediaType: "application/vnd.oci.image.layer.v1.tar",
              digest: `sha256:${sha256Hex(layers[1] as Uint8Array)}`,
            },
          ],
        }),
      );
      const layout = join(work, "oci");
      await writeOciLayout(layout, manifest, [config, ...layers]);
      const rootfs = await importImage(layout, { cacheDir, maxLayerBytes: 1 << 26, headroomBytes: 1 << 20 });
      expect(rootfs.digest).toBe(sha256Hex(manifest));
      expect(rootfs.config).toEqual({ env: ["A=1"], workdir: "/etc", cmd: ["/bin/tool"] });
      await expectMergedLayers(rootfs.diskPath);
      // Cached by digest: a second import is the same file.
      expect(
        (await importImage(layout, { cacheDir, maxLayerBytes: 1 << 26, headroomBytes: 1 << 20 })).diskPath,
      ).toBe(rootfs.diskPath);
    },
  );

  it.skipIf(SKIP_DEBUGFS)("imports a `docker save` tar the same way", async () => {
    const layers = [writeTar(BASE), writeTar(TOP)];
    const config = dockerConfig({ Env: ["B=2"] }, layers);
    const tarPath = join(work, "saved.tar");
    await writeFile(tarPath, dockerSave(config, layers));
    const rootfs = await importImage(tarPath, { cacheDir, maxLayerBytes: 1 << 26, headroomBytes: 1 << 20 });
    expect(rootfs.digest).toBe(
      sha256Hex([sha256Hex(config), ...layers.map((layer) => sha256Hex(layer))].join("\n")),
    );
    expect(rootfs.config).toEqual({ env: ["B=2"], workdir: "/", cmd: [] });
    await expectMergedLayers(rootfs.diskPath);
  });

  it.skipIf(SKIP_DEBUGFS)(
    "refuses a `docker save` tar whose layers are not its config's diff_ids, and caches nothing for it",
    async () => {
      const realLayers = [writeTar([{ path: "who", type: "file", data: text("I am the real image\n") }])];
      const config = dockerConfig({ Cmd: ["cat", "/who"] }, realLayers);
      // The audit's attack: the real image's config.json beside other layers, imported first.
      const attackerLayers = [
        writeTar([{ path: "who", type: "file", data: text("I am the ATTACKER image\n") }]),
      ];
      const attacker = join(work, "attacker.tar");
      await writeFile(attacker, dockerSave(config, attackerLayers));
      await expect(
        importImage(attacker, { cacheDir, maxLayerBytes: 1 << 20, headroomBytes: 1 << 20 }),
      ).rejects.toThrow(
        `${attacker}: layer l1/layer.tar is sha256:${sha256Hex(attackerLayers[0] as Uint8Array)} but config.json says sha256:${sha256Hex(realLayers[0] as Uint8Array)}; the image is corrupt or tampered with, refused`,
      );
      const real = join(work, "real.tar");
      await writeFile(real, dockerSave(config, realLayers));
      const rootfs = await importImage(real, { cacheDir, maxLayerBytes: 1 << 20, headroomBytes: 1 << 20 });
      expect(debugfs(rootfs.diskPath, "cat /who")).toBe("I am the real image\n");
      // A config without diff_ids cannot vouch for its layers.
      const unverifiable = join(work, "unverifiable.tar");
      await writeFile(unverifiable, dockerSave(text("{}"), realLayers));
      await expect(
        importImage(unverifiable, { cacheDir, maxLayerBytes: 1 << 20, headroomBytes: 1 << 20 }),
      ).rejects.toThrow(
        `${unverifiable}: config.json must list one sha256 rootfs.diff_ids entry per layer (1); the layers cannot be verified without them`,
      );
    },
  );

  it("keeps a whiteout named `.wh...` inside the root: the directory above survives", async () => {
    const above = join(work, "above");
    const root = join(above, "root");
    await mkdir(root, { recursive: true });
    await writeFile(join(above, "precious"), "host file\n");
    for (const path of [".wh...", "etc/.wh...", "etc/.wh.."]) {
      const layer = readTar(writeTar([{ path, type: "file" }]), "layer");
      await expect(applyLayer(root, layer, "layer")).rejects.toThrow(
        `layer: whiteout /${path} names no file of its directory; refused`,
      );
    }
    expect(await readFile(join(above, "precious"), "utf8")).toBe("host file\n");
    expect(existsSync(root)).toBe(true);
  });

  // Only root gives the staged files the image's owners, which setuid and setgid bits need.
  it.skipIf(SKIP_DEBUGFS)("keeps setuid and setgid bits of an image imported as root", async (context) => {
    if (process.getuid?.() !== 0)
      return context.skip(
        "only root gives the staged files the image's owners (root), which its setuid and setgid bits belong to; run the suite as root (as CI does) to check it",
      );
    const layer = writeTar([
      { path: "bin", type: "dir" },
      { path: "bin/su", type: "file", mode: 0o4755, data: text("su\n") },
      { path: "bin/wall", type: "file", mode: 0o2755, data: text("wall\n") },
      { path: "shared", type: "dir", mode: 0o3777 },
    ]);
    const tarPath = join(work, "setuid.tar");
    await writeFile(tarPath, dockerSave(dockerConfig({}, [layer]), [layer]));
    const rootfs = await importImage(tarPath, { cacheDir, maxLayerBytes: 1 << 20, headroomBytes: 1 << 20 });
    expect(listing(rootfs.diskPath, "/bin").sort()).toEqual(["102755 0 0 wall 5", "104755 0 0 su 3"]);
    expect(listing(rootfs.diskPath, "/").filter((row) => row.endsWith(" shared "))).toEqual([
      "043777 0 0 shared ",
    ]);
  });

  it("refuses a missing image, a corrupt blob and an entry that climbs out of the root", async () => {
    await expect(
      importImage(join(work, "nope"), { cacheDir, maxLayerBytes: 1 << 20, headroomBytes: 1 << 20 }),
    ).rejects.toThrow(
      `image ${join(work, "nope")} does not exist; give an OCI image layout directory or a \`docker save\` tar`,
    );
    const layer = writeTar(BASE);
    const config = text("{}");
    const manifest = text(
      JSON.stringify({
        config: { digest: `sha256:${sha256Hex(config)}` },
        layers: [{ digest: `sha256:${sha256Hex(layer)}` }],
      }),
    );
    const layout = join(work, "corrupt");
    await writeOciLayout(layout, manifest, [config, layer]);
    await writeFile(join(layout, "blobs", "sha256", sha256Hex(layer)), text("tampered"));
    await expect(
      importImage(layout, { cacheDir, maxLayerBytes: 1 << 20, headroomBytes: 1 << 20 }),
    ).rejects.toThrow(
      `${layout}: blob sha256:${sha256Hex(layer)} does not match its digest; the layout is corrupt`,
    );
    const evil = writeTar([{ path: "../escape", type: "file", data: text("x") }]);
    const evilManifest = text(
      JSON.stringify({
        config: { digest: `sha256:${sha256Hex(config)}` },
        layers: [{ digest: `sha256:${sha256Hex(evil)}` }],
      }),
    );
    const evilLayout = join(work, "evil");
    await writeOciLayout(evilLayout, evilManifest, [config, evil]);
    const attempt = importImage(evilLayout, { cacheDir, maxLayerBytes: 1 << 20, headroomBytes: 1 << 20 });
    await expect(attempt).rejects.toBeInstanceOf(ImageFormatError);
    await expect(attempt).rejects.toThrow("entry ../escape climbs out of the root");
  });

  it.skipIf(SKIP_DEBUGFS)("follows a layer's symlinks inside the image, never onto the host", async () => {
    const hostDir = join(work, "host-side");
    const config = text("{}");
    const first = writeTar([{ path: "etc", type: "symlink", linkName: hostDir }]);
    const second = writeTar([{ path: "etc/passwd", type: "file", data: text("owned\n") }]);
    const manifest = text(
      JSON.stringify({
        config: { digest: `sha256:${sha256Hex(config)}` },
        layers: [first, second].map((l) => ({ digest: `sha256:${sha256Hex(l)}` })),
      }),
    );
    const layout = join(work, "symlinked");
    await writeOciLayout(layout, manifest, [config, first, second]);
    const rootfs = await importImage(layout, { cacheDir, maxLayerBytes: 1 << 20, headroomBytes: 1 << 20 });
    expect(existsSync(hostDir)).toBe(false);
    expect(debugfs(rootfs.diskPath, `cat ${hostDir}/passwd`)).toBe("owned\n");
  });
});
