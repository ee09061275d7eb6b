import { chmodSync, lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadContinuationKey } from "../src/continuation/index.js";

const dir = () => mkdtempSync(join(tmpdir(), "atrium-key-"));

describe("the key continuations are signed with", () => {
  it("is made on first use: 32 random bytes in a file only its owner can read, then read back the same", async () => {
    const file = join(dir(), "nested", "continuation.key");
    const made = await loadContinuationKey({ keyFile: file });
    expect(made.length).toBe(32);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file).equals(made)).toBe(true);
    expect((await loadContinuationKey({ keyFile: file })).equals(made)).toBe(true);
  });

  it("refuses a key file others can read, a symbolic link, a short file and short bytes", async () => {
    const folder = dir();
    const open = join(folder, "open.key");
    writeFileSync(open, Buffer.alloc(32, 1));
    chmodSync(open, 0o640);
    await expect(loadContinuationKey({ keyFile: open })).rejects.toThrow(
      `the continuation key file ${open} can be read by others (mode 640); run chmod 600 ${open}`,
    );
    const target = join(folder, "target.key");
    writeFileSync(target, Buffer.alloc(32, 2), { mode: 0o600 });
    const link = join(folder, "link.key");
    symlinkSync(target, link);
    await expect(loadContinuationKey({ keyFile: link })).rejects.toThrow(
      `the continuation key file ${link} is a symbolic link; give the path of the file itself`,
    );
    const short = join(folder, "short.key");
    writeFileSync(short, "abc", { mode: 0o600 });
    await expect(loadContinuationKey({ keyFile: short })).rejects.toThrow(
      `the continuation key file ${short} holds 3 bytes; it needs at least 32 (delete it and a new one is made)`,
    );
    await expect(loadContinuationKey({ key: new Uint8Array(16) })).rejects.toThrow(
      "the continuation key is 16 bytes; use at least 32 random bytes (e.g. crypto.randomBytes(32))",
    );
  });
});
