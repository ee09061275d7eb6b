import { APT_PACKAGE_OF, aptCommand } from "../apt-hint.js";
import { exists, memoByFile } from "../cache-dir.js";
import { MissingDependencyError } from "../errors.js";
import { runCommand, which } from "../run-command.js";

export interface QemuBinary {
  path: string;
  /** e.g. "7.2.22" */
  version: string;
}

/** Finds qemu-system-x86_64 (or `ATRIUM_QEMU`) and asks it for its version. */
export async function findQemu(cacheDir: string, env: NodeJS.ProcessEnv = process.env): Promise<QemuBinary> {
  const path = env.ATRIUM_QEMU || (await which("qemu-system-x86_64"));
  if (!path) {
    throw new MissingDependencyError(
      `qemu-system-x86_64 was not found on PATH; install it with: ${aptCommand(APT_PACKAGE_OF.qemu)} (or set ATRIUM_QEMU to its path)`,
    );
  }
  if (!(await exists(path))) {
    throw new MissingDependencyError(
      `ATRIUM_QEMU names ${path}, which does not exist; fix it or unset it to use qemu-system-x86_64 from PATH`,
    );
  }
  // Remembered per binary (path, size, mtime): starting QEMU only to ask costs ~100 ms.
  const version = await memoByFile(cacheDir, "qemu-version", path, async () => {
    const result = await runCommand(path, ["--version"], { timeoutMs: 10_000 });
    const found = /version (\d+\.\d+(?:\.\d+)?)/.exec(result.stdout)?.[1];
    if (result.code !== 0 || !found) {
      throw new MissingDependencyError(
        `${path} --version failed (exit ${result.code}): ${result.stderr.trim()}`,
      );
    }
    return found;
  });
  return { path, version };
}
