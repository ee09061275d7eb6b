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
});
