import { chmod, type FileHandle, open } from "node:fs/promises";
import type { QemuUser } from "./qemu-user.js";

/** A machine's boot files, opened by this (possibly root) process for QEMU to inherit. */
export interface OpenedBootFiles {
  /** The fds in the order QEMU receives them (3, 4, 5). */
  fds: number[];
  /** What QEMU is told to open: /dev/fd/3 and /dev/fd/4. */
  kernelPath: string;
  initramfsPath: string;
  /**
   * QEMU's fd numbers of the disk (for `-add-fd`), when there is one: read-only, and for a
   * writable disk also read-write (QEMU picks the one whose mode matches each open it makes).
   */
  diskFds?: number[];
  /** Closes this process's copies (QEMU keeps its own once started). */
  close(): Promise<void>;
}

/**
 * Opens the kernel, the initramfs and the root disk for QEMU to inherit, so that a QEMU running
 * as an unprivileged user boots files in root's cache and state directories without any path to
 * them being opened up. The kernel and initramfs are re-opened by QEMU through /dev/fd/N, which
 * the kernel allows only for a file its user may read: they are made world-readable (they hold
 * the Debian kernel, the agent and the image's files, which are not secret; the directories
 * above them stay closed, so no other user reaches them by path). The disk goes through
 * `-add-fd`, which QEMU dups as is: it stays mode 0600, and QEMU can write it only when it is
 * opened read-write here (a named machine's own disk), never the shared cache's.
 */
export async function openBootFiles(files: {
  kernel: string;
  initramfs: string;
  disk?: string;
  diskWritable: boolean;
  user: QemuUser | undefined;
}): Promise<OpenedBootFiles> {
  const handles: FileHandle[] = [];
  try {
    for (const path of [files.kernel, files.initramfs]) {
      const handle = await open(path, "r");
      handles.push(handle);
      if (files.user && ((await handle.stat()).mode & 0o004) === 0) await chmod(path, 0o644);
    }
    if (files.disk) {
      handles.push(await open(files.disk, "r"));
      if (files.diskWritable) handles.push(await open(files.disk, "r+"));
    }
  } catch (error) {
    await Promise.all(handles.map((handle) => handle.close()));
    throw error;
  }
  return {
    fds: handles.map((handle) => handle.fd),
    kernelPath: "/dev/fd/3",
    initramfsPath: "/dev/fd/4",
    ...(files.disk ? { diskFds: files.diskWritable ? [5, 6] : [5] } : {}),
    close: async () => {
      await Promise.all(handles.map((handle) => handle.close()));
    },
  };
}
