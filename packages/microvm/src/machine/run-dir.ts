import { randomBytes } from "node:crypto";
import { chmod, chown, lstat, mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@atrium/spec";
import type { QemuUser } from "./qemu-user.js";

/**
 * A fresh directory for one QEMU: its agent socket and, for a throwaway disk, its snapshot
 * overlay. For an unprivileged QEMU it is owned by QEMU's user, which every machine's QEMU
 * shares; so it lies in a root-owned parent that can be passed through but not listed (0711),
 * under a name of 128 random bits: another machine's QEMU, compromised, cannot find the socket
 * that would let it command this machine's agent.
 */
export async function makeRunDir(user: QemuUser | undefined): Promise<string> {
  if (!user) return mkdtemp(join(tmpdir(), "atrium-vm-"));
  const parent = join(tmpdir(), "atrium-vm-run");
  await mkdir(parent, { recursive: true, mode: 0o711 });
  const info = await lstat(parent);
  if (!info.isDirectory() || info.uid !== 0) {
    throw new ConfigError(`${parent} is not a directory owned by root; remove it so it can be made again`);
  }
  if ((info.mode & 0o777) !== 0o711) await chmod(parent, 0o711);
  const dir = join(parent, randomBytes(16).toString("hex"));
  await mkdir(dir, { mode: 0o700 });
  await chown(dir, user.uid, user.gid);
  return dir;
}
