/**
 * Errors in the shape just-bash's commands expect from a filesystem: Node's `CODE: text, op 'path'`
 * message with a `code` property. Commands turn these into their own GNU-style messages
 * (`cat: x: No such file or directory`, `mkdir: cannot create directory 'x': ...`).
 */
export type PosixCode = "ENOENT" | "ENOTDIR" | "EISDIR" | "EROFS" | "EINVAL";

const TEXT: Record<PosixCode, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "illegal operation on a directory",
  EROFS: "read-only file system",
  EINVAL: "invalid argument",
};

export class PosixError extends Error {
  readonly code: PosixCode;
  readonly path: string;
  constructor(code: PosixCode, operation: string, path: string) {
    super(`${code}: ${TEXT[code]}, ${operation} '${path}'`);
    this.name = "PosixError";
    this.code = code;
    this.path = path;
  }
}

export function isPosixError(error: unknown, code?: PosixCode): error is PosixError {
  return error instanceof PosixError && (code === undefined || error.code === code);
}
