/**
 * A writer for the "newc" cpio format the kernel unpacks as its initramfs. Written here (not
 * with the cpio tool) so device nodes such as /dev/console can be added without root.
 */
interface Owner {
  uid?: number;
  gid?: number;
}

export type CpioEntry =
  | ({ kind: "file"; path: string; data: Uint8Array; mode?: number } & Owner)
  | ({ kind: "dir"; path: string; mode?: number } & Owner)
  | ({ kind: "symlink"; path: string; target: string } & Owner)
  | ({ kind: "char-device"; path: string; major: number; minor: number; mode?: number } & Owner);

const TRAILER = "TRAILER!!!";

export function writeCpio(entries: readonly CpioEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let length = 0;
  let inode = 1;
  const push = (bytes: Uint8Array) => {
    parts.push(bytes);
    length += bytes.byteLength;
    const pad = (4 - (length % 4)) % 4;
    if (pad) {
      parts.push(new Uint8Array(pad));
      length += pad;
    }
  };
  const header = (
    name: string,
    mode: number,
    size: number,
    rdevMajor: number,
    rdevMinor: number,
    owner: Owner = {},
  ) => {
    const nameBytes = new TextEncoder().encode(`${name}\0`);
    const fields = [
      inode++,
      mode,
      owner.uid ?? 0,
      owner.gid ?? 0,
      1,
      0,
      size,
      0,
      0,
      rdevMajor,
      rdevMinor,
      nameBytes.byteLength,
      0,
    ];
    const text = `070701${fields.map((value) => value.toString(16).padStart(8, "0")).join("")}`;
    const head = new TextEncoder().encode(text);
    const joined = new Uint8Array(head.byteLength + nameBytes.byteLength);
    joined.set(head);
    joined.set(nameBytes, head.byteLength);
    push(joined);
  };
  for (const entry of entries) {
    const path = entry.path.replace(/^\/+/, "");
    if (entry.kind === "dir") header(path, 0o040000 | (entry.mode ?? 0o755), 0, 0, 0, entry);
    else if (entry.kind === "char-device")
      header(path, 0o020000 | (entry.mode ?? 0o600), 0, entry.major, entry.minor, entry);
    else if (entry.kind === "symlink") {
      const target = new TextEncoder().encode(entry.target);
      header(path, 0o120777, target.byteLength, 0, 0, entry);
      push(target);
    } else {
      header(path, 0o100000 | (entry.mode ?? 0o644), entry.data.byteLength, 0, 0, entry);
      if (entry.data.byteLength) push(entry.data);
    }
  }
  header(TRAILER, 0, 0, 0, 0);
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
