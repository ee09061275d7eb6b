import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTar, writeTar } from "./tar.js";

describe("readTar", () => {
  it("reads what GNU tar writes in pax format: long names, symlinks, hard links, modes", () => {
    const dir = mkdtempSync(join(tmpdir(), "atrium-tar-"));
    try {
      const long = `${"d".repeat(120)}/${"f".repeat(120)}.txt`;
      mkdirSync(join(dir, "root", "d".repeat(120)), { recursive: true });
      writeFileSync(join(dir, "root", long), "long name\n", { mode: 0o640 });
      symlinkSync("target", join(dir, "root", "link"));
      writeFileSync(join(dir, "root", "a"), "A");
      execFileSync("ln", [join(dir, "root", "a"), join(dir, "root", "b")]);
      const archive = execFileSync("tar", [
        "--format=pax",
        "--sort=name",
        "-C",
        join(dir, "root"),
        "-cf",
        "-",
        ".",
      ]);
      const entries = readTar(archive, "test").map((e) => [
        e.path,
        e.type,
        e.mode.toString(8),
        e.linkName,
        Buffer.from(e.data).toString(),
      ]);
      expect(entries).toEqual([
        ["./", "dir", "755", "", ""],
        ["./a", "file", "644", "", "A"],
        ["./b", "hardlink", "644", "./a", ""],
        [`./${"d".repeat(120)}/`, "dir", "755", "", ""],
        [`./${long}`, "file", "640", "", "long name\n"],
        ["./link", "symlink", "777", "target", ""],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("round-trips what writeTar writes, and GNU tar reads it too", () => {
    const archive = writeTar([
      { path: "etc", type: "dir" },
      { path: "etc/x", type: "file", mode: 0o600, data: new TextEncoder().encode("x\n") },
      { path: "bin/sh", type: "symlink", linkName: "/bin/busybox" },
    ]);
    expect(
      readTar(archive, "t").map((e) => `${e.type} ${e.path} ${e.mode.toString(8)} ${e.linkName}`),
    ).toEqual(["dir etc 755 ", "file etc/x 600 ", "symlink bin/sh 644 /bin/busybox"]);
    expect(
      execFileSync("tar", ["-tvf", "-"], { input: archive, encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(["drwxr-xr-x", "-rw-------", "lrw-r--r--"]);
  });

  it("names a corrupt or truncated archive", () => {
    const archive = writeTar([{ path: "f", type: "file", data: new Uint8Array(1000) }]);
    const corrupt = Uint8Array.from(archive);
    corrupt[0] = 0x41;
    expect(() => readTar(corrupt, "layer 0")).toThrow(
      "layer 0: bad tar header checksum at byte 0; the archive is corrupt or not a tar",
    );
    expect(() => readTar(archive.subarray(0, 700), "layer 1")).toThrow(
      "layer 1: tar entry at byte 0 runs past the end; the archive is truncated",
    );
  });

  it("refuses crafted sizes and endless extension headers instead of looping", () => {
    // The audit's archive: a pax size=-512 applied to the next pax header moved the cursor back
    // onto that header, which kept the size: the reader looped forever.
    const looping = tarOf([paxHeader({ size: "-512" }), paxHeader({ path: "f" })]);
    expect(looping.byteLength).toBe(3072);
    expect(() => readTar(looping, "layer 0")).toThrow(
      "layer 0: tar entry at byte 1024 has an invalid size (-512); the archive is corrupt or crafted",
    );
    expect(() => readTar(tarOf([paxHeader({ size: "1e3" }), rawHeader("f", "0", "0")]), "l")).toThrow(
      "l: tar entry at byte 1024 has an invalid size (1e3); the archive is corrupt or crafted",
    );
    expect(() => readTar(tarOf([rawHeader("f", "0", "-1000")]), "l")).toThrow(
      "l: tar entry at byte 0 has an invalid size (-1000); the archive is corrupt or crafted",
    );
    const many = tarOf([
      ...Array.from({ length: 17 }, () => paxHeader({ path: "x" })),
      rawHeader("f", "0", "0"),
    ]);
    expect(() => readTar(many, "l")).toThrow(
      "l: more than 16 extension headers before one tar entry at byte 16384; the archive is corrupt or crafted",
    );
    const hugePax = tarOf([rawHeader("pax", "x", (2 * 1024 * 1024).toString(8))]);
    expect(() => readTar(hugePax, "l")).toThrow(
      "l: tar extension header at byte 0 is 2097152 bytes, over 1048576; the archive is corrupt or crafted",
    );
  });
});

/** One ustar header block with a raw size field, checksummed. */
function rawHeader(name: string, type: string, size: string): Uint8Array {
  const block = new Uint8Array(512);
  const put = (offset: number, text: string) => block.set(new TextEncoder().encode(text), offset);
  put(0, name);
  put(100, "0000644");
  put(124, size);
  put(156, type);
  put(257, "ustar\x0000");
  block.fill(32, 148, 156);
  const sum = block.reduce((total, byte) => total + byte, 0);
  put(148, `${sum.toString(8).padStart(6, "0")}\0 `);
  return block;
}

/** A pax extended header (type x) carrying `records`, padded to whole blocks. */
function paxHeader(records: Record<string, string>): Uint8Array {
  let body = "";
  for (const [key, value] of Object.entries(records)) {
    const record = ` ${key}=${value}\n`;
    let length = record.length + 1;
    if (`${length}${record}`.length !== length) length += 1;
    body += `${length}${record}`;
  }
  const data = new TextEncoder().encode(body);
  const padded = new Uint8Array(Math.ceil(data.byteLength / 512) * 512);
  padded.set(data);
  return tarOf([rawHeader("pax", "x", data.byteLength.toString(8)), padded], false);
}

function tarOf(parts: Uint8Array[], end = true): Uint8Array {
  const all = end ? [...parts, new Uint8Array(1024)] : parts;
  const out = new Uint8Array(all.reduce((total, part) => total + part.byteLength, 0));
  let offset = 0;
  for (const part of all) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
