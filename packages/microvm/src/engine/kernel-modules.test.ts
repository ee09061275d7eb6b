import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveModules } from "./kernel-modules.js";

describe("resolveModules", () => {
  it("orders dependencies first, once each, and skips built-in modules", async () => {
    const dir = await mkdtemp(join(tmpdir(), "atrium-modules-"));
    try {
      await writeFile(
        join(dir, "modules.dep"),
        [
          "kernel/fs/ext4/ext4.ko.xz: kernel/lib/crc16.ko.xz kernel/fs/mbcache.ko kernel/fs/jbd2/jbd2.ko",
          "kernel/fs/jbd2/jbd2.ko:",
          "kernel/fs/mbcache.ko:",
          "kernel/lib/crc16.ko.xz:",
          "kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio_ring.ko kernel/drivers/virtio/virtio.ko",
          "kernel/drivers/virtio/virtio_ring.ko: kernel/drivers/virtio/virtio.ko",
          "kernel/drivers/virtio/virtio.ko:",
          "",
        ].join("\n"),
      );
      await writeFile(join(dir, "modules.builtin"), "kernel/crypto/crc32c_generic.ko\n");
      expect(await resolveModules(dir, ["virtio_blk", "crc32c_generic", "ext4", "virtio-ring"])).toEqual([
        "kernel/drivers/virtio/virtio.ko",
        "kernel/drivers/virtio/virtio_ring.ko",
        "kernel/drivers/block/virtio_blk.ko",
        "kernel/fs/jbd2/jbd2.ko",
        "kernel/fs/mbcache.ko",
        "kernel/lib/crc16.ko.xz",
        "kernel/fs/ext4/ext4.ko.xz",
      ]);
      await expect(resolveModules(dir, ["nope"])).rejects.toThrow(
        `kernel module nope is neither in ${dir}/modules.dep nor built in`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
