import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { writeCpio } from "./cpio.js";

describe("writeCpio", () => {
  it("writes an archive GNU cpio lists with the same names, modes and devices", () => {
    const archive = writeCpio([
      { kind: "dir", path: "dev" },
      { kind: "char-device", path: "dev/console", major: 5, minor: 1 },
      { kind: "file", path: "init", data: new TextEncoder().encode("#!/bin/sh\n"), mode: 0o755 },
      { kind: "file", path: "etc.conf", data: new Uint8Array(0) },
    ]);
    const listing = execFileSync("cpio", ["-itv", "--quiet"], { input: archive, encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const cols = line.split(/\s+/);
        return `${cols[0]} ${cols[4]} ${cols[cols.length - 1]}`;
      });
    expect(listing).toEqual([
      "drwxr-xr-x 0 dev",
      "crw------- 5, dev/console",
      "-rwxr-xr-x 10 init",
      "-rw-r--r-- 0 etc.conf",
    ]);
  });
});
