import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PackFormatError } from "../errors.js";
import { SPARSE_BLOCK_BYTES } from "../image/sparse-blocks.js";
import { PACK_HEADER_BYTES, PACK_MAGIC } from "./pack-format.js";
import { packMachine } from "./pack-machine.js";
import { extractPack, readPackManifest } from "./read-pack.js";
import { writePack } from "./write-pack.js";

// The format on small real files (no guest): what goes in comes out, and each kind of damage
// is named. The boot of a real pack is in test/pack.test.ts.
describe("pack format", () => {
  let dir: string;
  let pack: string;
  const kernel = Buffer.alloc(3 * SPARSE_BLOCK_BYTES + 100);
  const disk = Buffer.alloc(8 * SPARSE_BLOCK_BYTES);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "atrium-pack-format-"));
    kernel.write("\x7fELF kernel head", 0);
    kernel.write("kernel tail", kernel.byteLength - 20);
    disk.write("superblock", 1024);
    disk.write("a file in the middle", 5 * SPARSE_BLOCK_BYTES + 7);
    await writeFile(join(dir, "vmlinux"), kernel);
    await writeFile(join(dir, "initramfs"), "initramfs bytes");
    await writeFile(join(dir, "agent"), "agent bytes");
    await writeFile(join(dir, "disk"), disk);
    pack = join(dir, "machine.atrium-vm");
    await writePack(
      pack,
      {
        createdAt: "2026-12-01T00:00:00.000Z",
        image: { digest: "sha256:abc", config: { env: [], workdir: "/", cmd: [] } },
        kernel: { release: "6.1.0-test", vmlinuzSha256: "f".repeat(64) },
        root: "disk",
      },
      {
        config: { bytes: Buffer.from('{"image":"busybox"}') },
        kernel: { path: join(dir, "vmlinux") },
        initramfs: { path: join(dir, "initramfs") },
        agent: { path: join(dir, "agent") },
        rootfs: { path: join(dir, "disk") },
      },
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function damaged(name: string, change: (bytes: Buffer) => Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, change(await readFile(pack)));
    return path;
  }

  it("gives back every section byte for byte, leaving zero blocks out of the file", async () => {
    const out = join(dir, "out");
    const { manifest, files } = await extractPack(pack, out);
    expect(manifest.sections.map((s) => [s.name, s.size])).toEqual([
      ["config", 19],
      ["kernel", kernel.byteLength],
      ["initramfs", 15],
      ["agent", 11],
      ["rootfs", disk.byteLength],
    ]);
    // Only the two disk blocks holding data are stored (plus a 12-byte record header each).
    expect(manifest.sections[4]?.storedBytes).toBe(2 * (12 + SPARSE_BLOCK_BYTES));
    // Buffer.equals: vitest's deep equality walks half a megabyte byte by byte.
    expect((await readFile(files.kernel)).equals(kernel)).toBe(true);
    expect((await readFile(files.rootfs)).equals(disk)).toBe(true);
    expect(await readFile(files.config, "utf8")).toBe('{"image":"busybox"}');
    expect(await readFile(files.agent, "utf8")).toBe("agent bytes");
    expect((await readPackManifest(pack)).manifest).toEqual(manifest);
  });

  it("names a file that is not a pack", async () => {
    const path = join(dir, "foreign.tar");
    await writeFile(path, "ustar\0 some tar file that is long enough to have a header");
    await expect(extractPack(path, join(dir, "x"))).rejects.toThrow(
      new PackFormatError(
        `${path} is not an atrium-vm pack (it does not start with the pack magic "ATRIUM-VM-PACK"); packs are written by \`atrium-vm pack create\``,
      ),
    );
    const empty = join(dir, "empty");
    await writeFile(empty, "");
    await expect(readPackManifest(empty)).rejects.toThrow(`${empty} is not an atrium-vm pack`);
    await expect(readPackManifest(join(dir, "missing"))).rejects.toThrow(
      `${join(dir, "missing")}: no such pack file; give the path of a file written by \`atrium-vm pack create\``,
    );
  });

  it("names a newer format version instead of calling it damage", async () => {
    const path = await damaged("v2", (bytes) => {
      bytes.writeUInt32BE(2, PACK_MAGIC.byteLength);
      return bytes;
    });
    await expect(readPackManifest(path)).rejects.toThrow(
      `${path} is a version 2 pack; this @atrium/microvm reads version 1: upgrade @atrium/microvm to boot it`,
    );
  });

  it("names a truncated copy", async () => {
    const size = (await stat(pack)).size;
    const path = await damaged("cut", (bytes) => bytes.subarray(0, size - 1000));
    await expect(extractPack(path, join(dir, "x"))).rejects.toThrow(
      `${path} is truncated: it has ${size - 1000} bytes, short of ${size} bytes; copy the whole file again`,
    );
    const header = await damaged("cut-header", (bytes) => bytes.subarray(0, PACK_HEADER_BYTES - 2));
    await expect(readPackManifest(header)).rejects.toThrow(`${header} is truncated`);
  });

  it("names the damaged section, the manifest, or the whole file", async () => {
    const size = (await stat(pack)).size;
    // The last data block of the disk: well inside the rootfs section.
    const inRootfs = await damaged("rootfs-bit", (bytes) => {
      bytes.writeUInt8(bytes.readUInt8(size - 32 - 100) ^ 0x01, size - 32 - 100);
      return bytes;
    });
    await expect(extractPack(inRootfs, join(dir, "x"))).rejects.toThrow(
      `${inRootfs} is corrupt: section "rootfs": its checksum does not match; copy the file again`,
    );
    const inManifest = await damaged("manifest-bit", (bytes) => {
      bytes.writeUInt8(bytes.readUInt8(PACK_HEADER_BYTES + 5) ^ 0x01, PACK_HEADER_BYTES + 5);
      return bytes;
    });
    await expect(readPackManifest(inManifest)).rejects.toThrow(
      `${inManifest} is corrupt: the manifest's checksum does not match; copy the file again`,
    );
    const inTrailer = await damaged("trailer-bit", (bytes) => {
      bytes.writeUInt8(bytes.readUInt8(size - 1) ^ 0x01, size - 1);
      return bytes;
    });
    await expect(extractPack(inTrailer, join(dir, "x"))).rejects.toThrow(
      `${inTrailer} is corrupt: the checksum over the whole file does not match; copy the file again`,
    );
    const longer = await damaged("longer", (bytes) => Buffer.concat([bytes, Buffer.from("extra")]));
    await expect(readPackManifest(longer)).rejects.toThrow(
      `${longer} is corrupt: 5 bytes follow the end its manifest gives (${size} bytes); copy the file again`,
    );
  });

  it("refuses to pack into a directory that does not exist, before building anything", async () => {
    await expect(
      packMachine({ config: { image: "busybox" }, out: join(dir, "no-dir", "x.atrium-vm") }),
    ).rejects.toThrow(
      `out: ${join(dir, "no-dir")} is not a directory; create it first or write the pack elsewhere`,
    );
  });

  it("writes nothing under the final name when a section cannot be read", async () => {
    const out = join(dir, "never.atrium-vm");
    await expect(
      writePack(
        out,
        {
          createdAt: "2026-12-01T00:00:00.000Z",
          image: { digest: "d", config: { env: [], workdir: "/", cmd: [] } },
          kernel: { release: "r", vmlinuzSha256: "s" },
          root: "disk",
        },
        {
          config: { bytes: Buffer.from("{}") },
          kernel: { path: join(dir, "no-such-kernel") },
          initramfs: { path: join(dir, "initramfs") },
          agent: { path: join(dir, "agent") },
          rootfs: { path: join(dir, "disk") },
        },
      ),
    ).rejects.toThrow("ENOENT");
    await expect(stat(out)).rejects.toThrow("ENOENT");
  });
});
