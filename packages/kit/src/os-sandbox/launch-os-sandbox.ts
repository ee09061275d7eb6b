import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { ConfigError } from "@atrium/spec";
import {
  type OsSandboxHost,
  type OsSandboxProgram,
  osSandboxCommand,
  SECCOMP_FD,
} from "./os-sandbox-command.js";
import { type OsSandboxLimits, resolveOsSandboxLimits } from "./os-sandbox-limits.js";
import { seccompProgram } from "./seccomp-program.js";

/** The OS sandbox cannot start here; the message says what is missing and how to get it. */
export class OsSandboxUnavailableError extends ConfigError {
  override name = "OsSandboxUnavailableError";
}

/** How to get the sandbox on Debian and Ubuntu, for every message that says it is missing. */
export const OS_SANDBOX_INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap) on Linux with user namespaces enabled";

/** A process started in the OS sandbox. */
export interface OsSandboxProcess {
  child: ChildProcess;
  /** The last lines the sandbox (bubblewrap, Node) wrote to stderr: for error messages. */
  stderrTail(): string;
}

const STDERR_TAIL_CHARS = 4_000;
/** Unprivileged uids a root host hands to sandboxes: one each, outside the usual user ranges. */
const UID_BASE = 200_000;
const UID_SPAN = 800_000;

let cachedHost: { key: string; host: Omit<OsSandboxHost, "uid"> } | undefined;
let cachedSeccomp: Buffer | undefined;

/**
 * A system tool, from the system's own folders first: a package manager's scripts put
 * `node_modules/.bin` at the front of PATH, and a tool that starts sandboxes as root should not
 * be whatever a dependency placed there.
 */
function findOnPath(name: string): string | undefined {
  const dirs = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", ...(process.env.PATH ?? "").split(delimiter)];

  for (const dir of dirs) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return realpathSync(path);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The host's bubblewrap (`ATRIUM_BWRAP`, else from PATH), prlimit and setpriv, or an error
 * naming what is missing.
 */
export function osSandboxHost(): Omit<OsSandboxHost, "uid"> {
  const key = `${process.env.ATRIUM_BWRAP ?? ""}\0${process.env.PATH ?? ""}`;
  if (cachedHost?.key === key) return cachedHost.host;
  if (process.platform !== "linux") {
    throw new OsSandboxUnavailableError(
      `the OS sandbox needs Linux (bubblewrap and namespaces); this is ${process.platform}`,
    );
  }
  const chosen = process.env.ATRIUM_BWRAP;
  if (chosen) {
    try {
      accessSync(chosen, constants.X_OK);
    } catch {
      throw new OsSandboxUnavailableError(
        `ATRIUM_BWRAP names ${chosen}, which is not an executable file; fix it, or unset it to use bwrap from PATH`,
      );
    }
  }
  const bwrap = chosen || findOnPath("bwrap");

  if (!bwrap)
    throw new OsSandboxUnavailableError(
      `bubblewrap (bwrap) was not found on PATH: ${OS_SANDBOX_INSTALL_HINT}`,
    );
  const prlimit = findOnPath("prlimit");
  if (!prlimit) {
    throw new OsSandboxUnavailableError(
      "prlimit was not found on PATH: install util-linux (sudo apt-get install util-linux)",
    );
  }
  const bash = findOnPath("bash");
  if (!bash)
    throw new OsSandboxUnavailableError(
      "bash was not found; it closes inherited file descriptors before the sandbox starts",
    );
  const isRoot = process.getuid?.() === 0;
  const setpriv = isRoot ? findOnPath("setpriv") : undefined;
  if (isRoot && !setpriv) {
    throw new OsSandboxUnavailableError(
      "running as root, the sandbox must drop to an unprivileged user with setpriv, which was not found: install util-linux (sudo apt-get install util-linux)",
    );
  }
  const host = {
    bash,
    bwrap,
    prlimit,
    nodePath: realpathSync(process.execPath),
    ...(setpriv ? { setpriv } : {}),
  };

  cachedHost = { key, host };
  return host;
}

/** Paths an unprivileged uid must be able to read: every one readable by others. */
function assertWorldReadable(paths: readonly string[]): void {
  for (const path of paths) {
    const mode = statSync(path).mode;
    const needed = statSync(path).isDirectory() ? 0o005 : 0o004;
    if ((mode & needed) !== needed) {
      throw new OsSandboxUnavailableError(
        `the sandbox runs as an unprivileged user and cannot read ${path} (mode ${(mode & 0o777).toString(8)}); make it readable by others (chmod o+r${needed === 0o005 ? "x" : ""})`,
      );
    }
  }
}

/**
 * Starts `program` in the OS sandbox (see os-sandbox-command.ts for what it is) with stdin,
 * stdout and stderr as pipes. Starting is the test of support: a host without bubblewrap or
 * namespaces fails here, and the caller learns it from the process's exit and `stderrTail`.
 */
export function launchOsSandbox(
  program: OsSandboxProgram,
  limits: Partial<OsSandboxLimits> = {},
): OsSandboxProcess {
  const tools = osSandboxHost();
  const host: OsSandboxHost = tools.setpriv
    ? { ...tools, uid: UID_BASE + Math.floor(Math.random() * UID_SPAN) }
    : { ...tools };
  if (host.uid !== undefined) {
    assertWorldReadable([
      program.dir,
      join(program.dir, program.main),
      ...(program.mounts ?? []).map((mount) => mount.host),
    ]);
  }
  const { command, args } = osSandboxCommand(program, host, resolveOsSandboxLimits(limits));
  const child = spawn(command, args, {
    stdio: ["pipe", "pipe", "pipe", "pipe"],
    env: {},
    cwd: program.dir,
  });
  cachedSeccomp ??= seccompProgram();
  const seccompPipe = child.stdio[SECCOMP_FD] as NodeJS.WritableStream & {
    on(e: "error", f: () => void): void;
  };
  seccompPipe.on("error", () => undefined);
  seccompPipe.end(cachedSeccomp);
  let tail = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => {
    tail = (tail + text).slice(-STDERR_TAIL_CHARS);
  });
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.on("error", () => undefined);
  return { child, stderrTail: () => tail.trim() };
}
