import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openContinuation, signContinuation } from "../src/continuation/continuation-codec.js";
import { loadContinuationKey } from "../src/continuation/index.js";

const key = Buffer.alloc(32, 7);

describe("attack: continuation encoding", () => {
  it("a continuation changed in any byte is refused (SECURITY.md) — the MAC's last base64url char is malleable", () => {
    const text = signContinuation({ a: 1 }, key);
    const last = text.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const accepted: string[] = [];
    for (const c of alphabet) {
      if (c === last) continue;
      try {
        openContinuation(text.slice(0, -1) + c, key);
        accepted.push(c);
      } catch {}
    }
    // and trailing junk after the MAC
    for (const tail of ["=", "==", "!", "*"]) {
      try {
        openContinuation(text + tail, key);
        accepted.push(`+${tail}`);
      } catch {}
    }
    expect(accepted).toEqual([]);
  });
});

describe("attack: continuation key file", () => {
  it("a key file planted as a symlink to a file someone else chose is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "atk-key-"));
    // The attacker (who can write the key's directory) plants a key they know, mode 0600, and a symlink.
    const planted = join(dir, "attacker-key");
    writeFileSync(planted, Buffer.alloc(32, 0x41), { mode: 0o600 });
    const path = join(dir, "keys", "continuation.key");
    mkdirSync(join(dir, "keys"));
    chmodSync(join(dir, "keys"), 0o777); // a key directory others can write: never checked
    symlinkSync(planted, path);
    let outcome: unknown;
    try {
      outcome = await loadContinuationKey({ keyFile: path });
    } catch (error) {
      outcome = error;
    }
    // Expected: refused (a symlink, or a directory others can write). Got: the attacker's key.
    expect(outcome).toBeInstanceOf(Error);
  });
});
