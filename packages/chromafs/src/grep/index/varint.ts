/** Unsigned LEB128 integers, the grep index's postings and line numbers (mostly one byte each). */
export class VarintWriter {
  private bytes = new Uint8Array(1024);
  length = 0;

  write(value: number): void {
    if (this.length + 5 > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    let rest = value >>> 0;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.length++] = rest;
  }

  finish(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** Reads one varint at `at`; answers [value, next offset], or null when the bytes end mid-number or it exceeds 32 bits. */
export function readVarint(bytes: Uint8Array, at: number): [number, number] | null {
  let value = 0;
  let shift = 0;
  for (let offset = at; offset < bytes.length && shift < 35; offset++) {
    const byte = bytes[offset] as number;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return value > 0xffffffff ? null : [value, offset + 1];
    shift += 7;
  }
  return null;
}
