import { PalaceError } from "../errors.js";

/** The run walked past `maxFiles`: most likely the wrong folder, or one that needs a .gitignore. */
export function tooManyFiles(path: string, maxFiles: number): PalaceError {
  return new PalaceError(
    "palace/limit",
    `${path} holds more than ${maxFiles} files to mine (maxFiles); mine a subfolder, add a .gitignore, or raise limits.maxFiles`,
  );
}
