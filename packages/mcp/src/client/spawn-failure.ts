import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Why a server command could not be spawned, in words that say what to fix. A bare name that
 * is on no PATH directory fails with ENOENT, but with EACCES when some PATH directory cannot be
 * searched by this user (an inherited PATH naming another user's home, say), though the command
 * is just as missing: the PATH is searched here to tell the two apart from "found, not executable".
 */
export function describeSpawnFailure(
  command: string,
  error: NodeJS.ErrnoException,
  cwd: string | undefined,
  path = process.env.PATH ?? "",
): string {
  const notFound = `command not found: "${command}" (is it installed and on PATH${cwd ? `, or relative to ${cwd}` : ""}?)`;
  if (error.code === "ENOENT") return notFound;
  if (error.code === "EACCES" && !command.includes("/")) {
    const found = path
      .split(delimiter)
      .filter(Boolean)
      .map((dir) => join(dir, command))
      .find((candidate) => exists(candidate));
    return found ? `cannot start "${command}": ${found} is not executable by this user` : notFound;
  }
  return `cannot start "${command}": ${error.message}`;
}

function exists(path: string): boolean {
  try {
    accessSync(path, constants.F_OK);
    return true;
  } catch {
    return false;
  }
}
