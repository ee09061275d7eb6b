import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { ConfigError } from "@atrium/spec";

/** The unprivileged user QEMU runs as when the host process is root. */
export interface QemuUser {
  uid: number;
  gid: number;
  /** Supplementary groups kept: only /dev/kvm's group, so KVM still works; none otherwise. */
  groups: number[];
}

/** nobody/nogroup on Debian: owns no files, so a QEMU running as it can reach almost nothing. */
export const DEFAULT_QEMU_UID = 65534;

/**
 * Whom QEMU runs as. A host process that is not root runs QEMU as itself (undefined: it cannot
 * change user, and it has no privilege to lose). A root host process drops QEMU to
 * `ATRIUM_VM_QEMU_UID` (and `ATRIUM_VM_QEMU_GID`, default the same number), else 65534; uid or
 * gid 0 is refused, since that would be root again.
 */
export function qemuUser(env: NodeJS.ProcessEnv = process.env): QemuUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = idFrom(env.ATRIUM_VM_QEMU_UID, "ATRIUM_VM_QEMU_UID") ?? DEFAULT_QEMU_UID;
  const gid = idFrom(env.ATRIUM_VM_QEMU_GID, "ATRIUM_VM_QEMU_GID") ?? uid;
  return { uid, gid, groups: kvmGroup() };
}

function kvmGroup(): number[] {
  try {
    const info = statSync("/dev/kvm");
    return info.gid !== 0 && (info.mode & 0o060) === 0o060 ? [info.gid] : [];
  } catch {
    return [];
  }
}

function idFrom(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const id = Number(value);
  if (!/^\d+$/.test(value) || id === 0 || id > 0xfffffffe) {
    throw new ConfigError(
      `${name}=${value}: QEMU must run as an unprivileged user; give a numeric id other than 0 (default ${DEFAULT_QEMU_UID}, nobody)`,
    );
  }
  return id;
}

/**
 * Whether `user` may use a host directory the way a volume needs: list and read it, and for a
 * read-write volume create files in it. Asked of the kernel by running `test` as that user, so
 * every directory on the path, ACLs included, counts.
 */
export function userCanUse(user: QemuUser, dir: string, writable: boolean): boolean {
  const test = ["test", "-r", dir, "-a", "-x", dir, ...(writable ? ["-a", "-w", dir] : [])];
  const result = spawnSync(
    "setpriv",
    ["--reuid", String(user.uid), "--regid", String(user.gid), "--clear-groups", "--", ...test],
    { stdio: "ignore" },
  );
  return result.status === 0;
}
