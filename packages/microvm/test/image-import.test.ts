import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../src/cache-dir.js";
import { type TarInput, writeTar } from "../src/image/tar.js";
import { ImageFormatError, importImage, writeOciLayout } from "../src/index.js";

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

let work: string;
let cacheDir: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "atrium-vm-image-"));
  cacheDir = join(work, "cache");
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

function debugfs(disk: string, request: string): string {
  return execFileSync("debugfs", ["-R", request, disk], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
}

/** `ls -p` rows as "mode uid gid name size", without inode numbers and the . and .. entries. */
function listing(disk: string, dir: string): string[] {
  return debugfs(disk, `ls -p ${dir}`)
    .split("\n")
    .filter(Boolean)
    .map((row) => row.split("/").slice(2, 7).join(" "))
    .filter((row) => !/ \.\.? /.test(` ${row.split(" ")[3]} `));
}

async function expectMergedLayers(disk: string): Promise<void> {
  expect(listing(disk, "/etc")).toEqual(["100644 0 0 keep 4"]);
  expect(debugfs(disk, "cat /etc/keep")).toBe("top\n");
  expect(listing(disk, "/opaque")).toEqual(["100644 0 0 new 4"]);
  expect(listing(disk, "/bin").sort()).toEqual(["100755 0 0 tool 10", "120777 0 0 alias 4"].sort());
}

describe("importImage", () => {
  it("imports an OCI layout, applying layers in order with whiteouts and opaque directories", async () => {
    const layers = [gzipSync(writeTar(BASE)), writeTar(TOP)];
    const config = text(JSON.stringify({ config: { Env: ["A=1"], WorkingDir: "/etc", Cmd: ["/bin/tool"] } }));
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
    const rootfs = await importImage(layout, { cacheDir, layerMaxBytes: 1 << 26, headroomBytes: 1 << 20 });
    expect(rootfs.digest).toBe(sha256Hex(manifest));
    expect(rootfs.config).toEqual({ env: ["A=1"], workdir: "/etc", cmd: ["/bin/tool"] });
    await expectMergedLayers(rootfs.diskPath);
    // Cached by digest: a second import is the same file.
    expect(
      (await importImage(layout, { cacheDir, layerMaxBytes: 1 << 26, headroomBytes: 1 << 20 })).diskPath,
    ).toBe(rootfs.diskPath);
  });

  it("imports a `docker save` tar the same way", async () => {
    const config = text(JSON.stringify({ config: { Env: ["B=2"] } }));
    const archive = writeTar([
      {
        path: "manifest.json",
        type: "file",
        data: text(JSON.stringify([{ Config: "config.json", Layers: ["l1/layer.tar", "l2/layer.tar"] }])),
      },
      { path: "config.json", type: "file", data: config },
      { path: "l1", type: "dir" },
      { path: "l1/layer.tar", type: "file", data: writeTar(BASE) },
      { path: "l2", type: "dir" },
      { path: "l2/layer.tar", type: "file", data: writeTar(TOP) },
    ]);
    const tarPath = join(work, "saved.tar");
    await writeFile(tarPath, archive);
    const rootfs = await importImage(tarPath, { cacheDir, layerMaxBytes: 1 << 26, headroomBytes: 1 << 20 });
    expect(rootfs.digest).toBe(sha256Hex(config));
    expect(rootfs.config).toEqual({ env: ["B=2"], workdir: "/", cmd: [] });
    await expectMergedLayers(rootfs.diskPath);
  });

  it("refuses a missing image, a corrupt blob and an entry that climbs out of the root", async () => {
    await expect(
      importImage(join(work, "nope"), { cacheDir, layerMaxBytes: 1 << 20, headroomBytes: 1 << 20 }),
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
      importImage(layout, { cacheDir, layerMaxBytes: 1 << 20, headroomBytes: 1 << 20 }),
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
    const attempt = importImage(evilLayout, { cacheDir, layerMaxBytes: 1 << 20, headroomBytes: 1 << 20 });
    await expect(attempt).rejects.toBeInstanceOf(ImageFormatError);
    await expect(attempt).rejects.toThrow("entry ../escape climbs out of the root");
  });

  it("follows a layer's symlinks inside the image, never onto the host", async () => {
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
    const rootfs = await importImage(layout, { cacheDir, layerMaxBytes: 1 << 20, headroomBytes: 1 << 20 });
    expect(existsSync(hostDir)).toBe(false);
    expect(debugfs(rootfs.diskPath, `cat ${hostDir}/passwd`)).toBe("owned\n");
  });
});
