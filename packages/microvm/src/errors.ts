import { AtriumError, type AtriumErrorOptions } from "@atrium/spec";

/**
 * A host piece the machine needs is missing (QEMU, a kernel, a toolchain, mke2fs). The message
 * names it and the command that installs it.
 */
export class MissingDependencyError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("UNAVAILABLE", message, { isFatal: true, ...options });
  }
}

/**
 * The guest stopped answering: its kernel panicked, its agent crashed, QEMU exited or the boot
 * timed out. The machine is unusable; `consoleTail` is the end of its console, where the reason is.
 */
export class GuestFailureError extends AtriumError {
  readonly consoleTail: string;
  constructor(message: string, consoleTail: string, options: AtriumErrorOptions = {}) {
    super(
      "EXECUTION",
      consoleTail ? `${message}\n--- guest console (last lines) ---\n${consoleTail}` : message,
      {
        isFatal: true,
        ...options,
      },
    );
    this.consoleTail = consoleTail;
  }
}

/** A guest file operation failed (no such file, permission); the machine is fine. */
export class GuestFileError extends AtriumError {
  readonly errno: number;
  constructor(message: string, errno: number) {
    super(errno === 2 ? "NOT_FOUND" : "EXECUTION", message);
    this.errno = errno;
  }
}

/** An image could not be read: not an OCI layout or `docker save` tar, a missing blob, a bad digest. */
export class ImageFormatError extends AtriumError {
  constructor(message: string, options: AtriumErrorOptions = {}) {
    super("VALIDATION", message, options);
  }
}

/**
 * A request to the guest is larger than the agent's frame limit (an exec's argv and environment,
 * a path): refused on the host before anything is sent, the guest unaffected.
 */
export class RequestTooLargeError extends AtriumError {
  constructor(message: string) {
    super("VALIDATION", message);
  }
}

/**
 * A pack file that cannot be booted: not a pack at all, a newer format, cut short, or damaged.
 * The message names the file, what is wrong, and what to do (copy it again, upgrade).
 */
export class PackFormatError extends AtriumError {
  constructor(message: string) {
    super("VALIDATION", message);
  }
}

/**
 * A snapshot file that cannot be restored: not a snapshot, another format version, cut short, or
 * taken of an image or kernel this host does not have. The message names the file and what to do.
 */
export class SnapshotFormatError extends AtriumError {
  constructor(message: string) {
    super("VALIDATION", message);
  }
}

/**
 * The machine cannot be snapshotted or forked as it is (a mounted 9p volume, which QEMU will not
 * migrate): the message names what is in the way and what to do.
 */
export class SnapshotRefusedError extends AtriumError {
  constructor(message: string) {
    super("VALIDATION", message);
  }
}
