import { spawnSync } from "node:child_process";

/**
 * The locale both sides run in: GNU's tools under C.UTF-8 (byte order for sort and ls, UTF-8
 * character classes for grep), which is what ChromaFs's own commands implement.
 */
export const ORACLE_LOCALE = "C.UTF-8";

/** Runs `command` with GNU bash/grep/find/coreutils over the disk copy. */
export function runGnu(command: string, root: string): { stdout: string; exitCode: number } {
  const result = spawnSync("bash", ["-c", command], {
    cwd: root,
    env: { PATH: process.env.PATH, R: root, LC_ALL: ORACLE_LOCALE, HOME: "/nonexistent" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  return { stdout: result.stdout.replaceAll(root, ""), exitCode: result.status ?? -1 };
}
