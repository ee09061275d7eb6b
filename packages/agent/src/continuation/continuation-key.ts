import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigError } from "@atrium/spec";

/** The shortest key a continuation is signed with: 256 bits, HMAC-SHA256's own size. */
export const MIN_CONTINUATION_KEY_BYTES = 32;

/**
 * Where the key that signs continuations comes from: bytes the caller keeps (a secret store, an
 * environment variable), or a file only its owner can read, made on first use. The key is never
 * in the continuation itself, so whoever holds a saved run cannot forge another.
 */
export type ContinuationKeySource = { key: Uint8Array | string } | { keyFile: string };

/** The key's bytes; a file that is missing is made (0600), one that others can read is refused. */
export async function loadContinuationKey(source: ContinuationKeySource): Promise<Buffer> {
  if ("key" in source) {
    const key = typeof source.key === "string" ? Buffer.from(source.key, "utf8") : Buffer.from(source.key);
    if (key.length < MIN_CONTINUATION_KEY_BYTES) {
      throw new ConfigError(
        `the continuation key is ${key.length} bytes; use at least ${MIN_CONTINUATION_KEY_BYTES} random bytes (e.g. crypto.randomBytes(32))`,
      );
    }
    return key;
  }
  const file = source.keyFile;
  await checkPrivateFolder(dirname(file), "the continuation key file's folder");
  const made = await createKeyFile(file);
  if (made) return made;
  // Opened once, without following a link, and checked through that descriptor: a link or a file
  // swapped in after the checks cannot hand over another key.
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") {
      throw new ConfigError(
        `the continuation key file ${file} is a symbolic link; give the path of the file itself`,
      );
    }
    throw error;
  }
  let key: Buffer;
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ConfigError(`the continuation key file ${file} is not a regular file`);
    if (typeof process.getuid === "function" && info.uid !== process.getuid()) {
      throw new ConfigError(
        `the continuation key file ${file} belongs to uid ${info.uid}, not to this process's user (${process.getuid()}); use a key file of your own`,
      );
    }
    if ((info.mode & 0o077) !== 0) {
      throw new ConfigError(
        `the continuation key file ${file} can be read by others (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 ${file}`,
      );
    }
    key = await handle.readFile();
  } finally {
    await handle.close();
  }
  if (key.length < MIN_CONTINUATION_KEY_BYTES) {
    throw new ConfigError(
      `the continuation key file ${file} holds ${key.length} bytes; it needs at least ${MIN_CONTINUATION_KEY_BYTES} (delete it and a new one is made)`,
    );
  }
  return key;
}

/**
 * Refuses a folder others could put files in (a key or a snapshot planted there would be used):
 * it must be this user's and writable by no one else. Made (0700) when it does not exist.
 */
export async function checkPrivateFolder(folder: string, what: string): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const info = await lstat(folder);
  if (!info.isDirectory())
    throw new ConfigError(`${what} ${folder} is not a folder (a link?); give a real folder`);
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  if (uid !== undefined && info.uid !== uid) {
    throw new ConfigError(
      `${what} ${folder} belongs to uid ${info.uid}, not to this process's user (${uid}); use a folder of your own`,
    );
  }
  if ((info.mode & 0o022) !== 0) {
    throw new ConfigError(
      `${what} ${folder} can be written by others (mode ${(info.mode & 0o777).toString(8)}); run chmod go-w ${folder}, or use a private folder`,
    );
  }
}

/** Makes the key file with fresh random bytes, readable by its owner only; undefined if it exists. */
async function createKeyFile(file: string): Promise<Buffer | undefined> {
  const key = randomBytes(MIN_CONTINUATION_KEY_BYTES);
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_EXCL: two processes starting at once never overwrite each other's key.
    handle = await open(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  try {
    await handle.writeFile(key);
  } finally {
    await handle.close();
  }
  return key;
}
