import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { APT_PACKAGE_OF, aptCommand } from "../apt-hint.js";
import { buildOnce, exists, sha256Hex } from "../cache-dir.js";
import { MissingDependencyError } from "../errors.js";
import { runCommand, which } from "../run-command.js";

const CFLAGS = ["-static", "-Os", "-s", "-Wall", "-Wno-format-truncation"];

/** agent.c from the sources (tests, a checkout) or beside a build (the published package keeps src/). */
async function agentSourcePath(): Promise<string> {
  const candidates = [
    new URL("./agent.c", import.meta.url),
    new URL("../src/guest-agent/agent.c", import.meta.url),
  ];
  for (const url of candidates) {
    const path = fileURLToPath(url);
    if (await exists(path)) return path;
  }
  throw new MissingDependencyError(
    "the guest agent's source (agent.c) is missing from this installation of @atrium/microvm",
  );
}

/**
 * The static guest agent binary, compiled with musl-gcc from this package's agent.c and cached by
 * the hash of the source and flags, so a changed agent is rebuilt and an unchanged one never is.
 */
export async function buildGuestAgent(cacheDir: string): Promise<string> {
  const sourcePath = await agentSourcePath();
  const source = await readFile(sourcePath);
  const key = sha256Hex(`${sha256Hex(source)}\n${CFLAGS.join(" ")}`).slice(0, 32);
  return buildOnce(join(cacheDir, "agent", key, "atrium-agent"), async (tmp) => {
    const compiler = (await which("musl-gcc")) ?? undefined;
    if (!compiler) {
      throw new MissingDependencyError(
        `musl-gcc is needed to build the guest agent; install it with: ${aptCommand(APT_PACKAGE_OF.musl)}`,
      );
    }
    const result = await runCommand(compiler, [...CFLAGS, "-o", tmp, sourcePath], { timeoutMs: 120_000 });
    if (result.code !== 0)
      throw new MissingDependencyError(`building the guest agent failed:\n${result.stderr}`);
  });
}
