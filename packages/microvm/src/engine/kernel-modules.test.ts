import { describe, expect, it } from "vitest";
import { withoutSignature } from "./kernel-modules.js";

const MAGIC = "~Module signature appended~\n";

/** A module body, a signature of `length` bytes and the 12-byte `struct module_signature`. */
function signed(body: string, length: number): Buffer {
  const info = Buffer.alloc(12);
  info.writeUInt32BE(length, 8);
  return Buffer.concat([Buffer.from(body), Buffer.alloc(length, 0xab), info, Buffer.from(MAGIC)]);
}

describe("withoutSignature", () => {
  it("cuts the appended signature, its descriptor and the magic, and nothing of the module", () => {
    expect(Buffer.from(withoutSignature(signed("\x7fELF module", 681))).toString()).toBe("\x7fELF module");
  });

  it("leaves an unsigned module as it is", () => {
    const module = Buffer.from("\x7fELF unsigned module");
    expect(withoutSignature(module)).toBe(module);
  });

  it("leaves a file alone whose signature length would run past its start", () => {
    const broken = signed("tiny", 4);
    broken.writeUInt32BE(10_000, broken.length - MAGIC.length - 4);
    expect(withoutSignature(broken)).toBe(broken);
  });
});
