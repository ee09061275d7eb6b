// The kernel's one-time decompression into the cache (issue 26, item 1): `npm run demo -- --web`
// crashed on its first start with `write EPIPE` because xz, told to stop after the first stream,
// exits while the bzImage's trailing bytes are still being written to it. These tests build a
// bzImage-shaped file (a header, an xz stream holding an ELF, megabytes of trailing data) with
// the real xz and decompress it into an empty cache, as the first start does.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareKernel } from "./kernel.js";

const XZ = ["/usr/bin/xz", "/bin/xz"].find((path) => existsSync(path));
const HAVE_XZ = XZ !== undefined;
if (!HAVE_XZ && process.env.CI === "true")
  throw new Error("xz is missing under CI=true; install it with: sudo apt-get install -y xz-utils");

const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);

function xzCompress(data: Buffer): Buffer {
  const result = spawnSync(XZ as string, ["-c", "-0"], { input: data, maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`xz -c failed: ${result.stderr}`);
  return result.stdout;
}

/** A file shaped like Debian's bzImage: a setup header, the xz stream, then trailing data. */
function fakeBzImage(kernel: Buffer, trailing: Buffer): Buffer {
  const header = Buffer.alloc(16_384, 0x4d);
  return Buffer.concat([header, xzCompress(kernel), trailing]);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The PID of a process that has exited, as a crashed earlier start leaves behind. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

describe.skipIf(!HAVE_XZ)("prepareKernel's decompression into an empty cache", () => {
  let dir: string;
  let cacheDir: string;
  let modulesDir: string;
  let vmlinuzPath: string;
  // An ELF header and 2 MB after it: xz writes it to the cache file while reading its input.
  const kernel = Buffer.concat([ELF_MAGIC, randomBytes(2 << 20)]);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "atrium-kernel-"));
    cacheDir = join(dir, "cache");
    modulesDir = join(dir, "modules");
    vmlinuzPath = join(dir, "vmlinuz-6.1.0-test-amd64");
    await mkdir(modulesDir);
    await writeFile(join(modulesDir, "modules.dep"), "");
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function kernelsDirEntries(): Promise<string[]> {
    const kernels = join(cacheDir, "kernels");
    if (!existsSync(kernels)) return [];
    const entries: string[] = [];
    for (const digestDir of await readdir(kernels)) {
      for (const name of await readdir(join(kernels, digestDir))) entries.push(name);
    }
    return entries.sort();
  }

  it("decompresses a kernel whose xz stream is followed by megabytes xz never reads (EPIPE on its stdin)", async () => {
    // 16 MB after the stream: far more than a pipe holds, so xz exits with most of it unwritten.
    await writeFile(vmlinuzPath, fakeBzImage(kernel, randomBytes(16 << 20)));
    const prepared = await prepareKernel(cacheDir, { vmlinuzPath, modulesDir });
    expect(prepared.release).toBe("6.1.0-test-amd64");
    expect(prepared.vmlinuxPath).toBe(join(cacheDir, "kernels", prepared.digest.slice(0, 32), "vmlinux"));
    expect((await readFile(prepared.vmlinuxPath)).equals(kernel)).toBe(true);
    expect(await kernelsDirEntries()).toEqual(["vmlinux"]);
  });

  it("gives concurrent first starts the one cached kernel and leaves no temporary file", async () => {
    await writeFile(vmlinuzPath, fakeBzImage(kernel, randomBytes(4 << 20)));
    const results = await Promise.all(
      Array.from({ length: 6 }, () => prepareKernel(cacheDir, { vmlinuzPath, modulesDir })),
    );
    expect(new Set(results.map((r) => r.vmlinuxPath)).size).toBe(1);
    expect((await readFile(results[0]!.vmlinuxPath)).equals(kernel)).toBe(true);
    expect(await kernelsDirEntries()).toEqual(["vmlinux"]);
  });

  it("reports a corrupt xz stream with xz's words and removes the partial file", async () => {
    const image = fakeBzImage(kernel, randomBytes(1 << 20));
    // Flip bytes inside the compressed data (past the xz header, so the magic still matches).
    for (let at = 16_384 + 4096; at < 16_384 + 4096 + 64; at++)
      image.writeUInt8(image.readUInt8(at) ^ 0xff, at);
    await writeFile(vmlinuzPath, image);
    await expect(prepareKernel(cacheDir, { vmlinuzPath, modulesDir })).rejects.toThrow(
      // xz names itself by the path it was started as (the first xz on PATH).
      new RegExp(
        `^xz could not decompress ${escapeRegExp(vmlinuzPath)}: /\\S*xz: \\(stdin\\): Compressed data is corrupt$`,
      ),
    );
    expect(await kernelsDirEntries()).toEqual([]);
  });

  it("refuses a stream that is not an ELF kernel and removes what it wrote", async () => {
    await writeFile(
      vmlinuzPath,
      fakeBzImage(Buffer.from("not a kernel\n".repeat(1000)), randomBytes(1 << 20)),
    );
    await expect(prepareKernel(cacheDir, { vmlinuzPath, modulesDir })).rejects.toThrow(
      `decompressing ${vmlinuzPath} did not give an ELF kernel`,
    );
    expect(await kernelsDirEntries()).toEqual([]);
  });

  it("removes the temporary file a crashed start left behind and keeps one still being written", async () => {
    await writeFile(vmlinuzPath, fakeBzImage(kernel, randomBytes(1 << 20)));
    const first = await prepareKernel(cacheDir, { vmlinuzPath, modulesDir });
    const kernelDir = join(first.vmlinuxPath, "..");
    await rm(first.vmlinuxPath);
    const dead = await deadPid();
    const stale = `vmlinux.tmp-${dead}-abc123`;
    // Just written by a PID that is not ours: maybe a build in another PID namespace sharing the cache.
    const recent = `vmlinux.tmp-${dead}-ghi789`;
    const live = `vmlinux.tmp-${process.pid}-def456`;
    await writeFile(join(kernelDir, stale), "half a kernel");
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(kernelDir, stale), anHourAgo, anHourAgo);
    await writeFile(join(kernelDir, recent), "a kernel being written elsewhere");
    await writeFile(join(kernelDir, live), "a kernel another start is writing");
    await prepareKernel(cacheDir, { vmlinuzPath, modulesDir });
    expect(await kernelsDirEntries()).toEqual([live, recent, "vmlinux"].sort());
  });
});

describe.skipIf(!existsSync("/boot") || !HAVE_XZ)("the host's Debian kernel", () => {
  it("decompresses from /boot into an empty cache", async (context) => {
    const names = existsSync("/boot") ? (await readdir("/boot")).filter((n) => n.startsWith("vmlinuz-")) : [];
    if (names.length === 0) {
      if (process.env.CI === "true") throw new Error("no /boot/vmlinuz-* under CI=true; run .ci/setup.sh");
      context.skip("no kernel in /boot (sudo apt-get install -y linux-image-amd64)");
    }
    const cacheDir = await mkdtemp(join(tmpdir(), "atrium-kernel-host-"));
    try {
      const prepared = await prepareKernel(cacheDir);
      const head = (await readFile(prepared.vmlinuxPath)).subarray(0, 4);
      expect(head.equals(ELF_MAGIC)).toBe(true);
      expect(await readdir(join(prepared.vmlinuxPath, ".."))).toEqual(["vmlinux"]);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});
