import { describe, expect, it } from "vitest";
import {
  DEFAULT_OS_SANDBOX_LIMITS,
  DENIED_SYSCALLS,
  osSandboxCommand,
  seccompProgram,
} from "../src/index.js";

const host = {
  bash: "/usr/bin/bash",
  bwrap: "/usr/bin/bwrap",
  prlimit: "/usr/bin/prlimit",
  nodePath: "/usr/bin/node",
};

describe("osSandboxCommand", () => {
  it("limits, namespaces, a read-only root and Node's permission model, as a user", () => {
    const { command, args } = osSandboxCommand(
      {
        dir: "/opt/app",
        main: "main.mjs",
        mounts: [{ host: "/opt/data", at: "/atrium/data" }],
        allowWorker: true,
      },
      host,
      DEFAULT_OS_SANDBOX_LIMITS,
    );
    expect(command).toBe("/usr/bin/bash");
    expect(args.slice(0, 5)).toEqual([
      "--norc",
      "--noprofile",
      "-c",

      'for fd in /proc/$$/fd/*; do fd=${fd##*/}; if [ "$fd" -gt 3 ]; then eval "exec $fd>&-" 2>/dev/null; fi; done; exec "$@"',
      "close-inherited-fds",
    ]);
    const line = args.slice(5).join(" ");
    expect(
      line.startsWith(
        "/usr/bin/prlimit --data=2147483648 --cpu=3600 --nofile=256 --core=0 -- /usr/bin/bwrap ",
      ),
    ).toBe(true);
    for (const flag of [
      "--unshare-net",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--new-session",
      "--clearenv",
      "--remount-ro /",
      "--seccomp 3",
    ]) {
      expect(line).toContain(flag);
    }
    expect(line).toContain("--ro-bind /opt/app /atrium/app --ro-bind /opt/data /atrium/data");
    expect(line).not.toContain("setpriv");
    expect(
      line.endsWith(
        "-- /usr/bin/node --experimental-permission --allow-fs-read=/atrium/* --allow-worker --disable-warning=ExperimentalWarning --no-addons /atrium/app/main.mjs",
      ),
    ).toBe(true);
  });

  it("drops to the given uid with setpriv when the host is root, and makes no user namespace", () => {
    const { args } = osSandboxCommand(
      { dir: "/opt/app", main: "main.mjs" },
      { ...host, setpriv: "/usr/bin/setpriv", uid: 234_567 },
      DEFAULT_OS_SANDBOX_LIMITS,
    );
    const line = args.slice(5).join(" ");
    expect(
      line.startsWith("/usr/bin/prlimit --data=2147483648 --cpu=3600 --nproc=256 --nofile=256 --core=0 -- "),
    ).toBe(true);
    expect(line).not.toContain("--unshare-user");

    expect(line).toContain(
      "-- /usr/bin/setpriv --reuid=234567 --regid=234567 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- /usr/bin/node",
    );
    expect(line).not.toContain("--allow-worker");
  });

  it("refuses mounts outside /atrium or over the program", () => {
    const run = (at: string) => () =>
      osSandboxCommand(
        { dir: "/a", main: "m.mjs", mounts: [{ host: "/x", at }] },
        host,
        DEFAULT_OS_SANDBOX_LIMITS,
      );
    expect(run("/etc")).toThrow(
      "a sandbox mount must be a path under /atrium/ other than /atrium/app, got /etc",
    );
    expect(run("/atrium/../etc")).toThrow("got /atrium/../etc");
    expect(run("/atrium/app/x")).toThrow("got /atrium/app/x");
    expect(() => osSandboxCommand({ dir: "/a", main: "../m.mjs" }, host, DEFAULT_OS_SANDBOX_LIMITS)).toThrow(
      "a sandbox program's main must be a file name in its folder, got ../m.mjs",
    );
  });
});

describe("seccompProgram", () => {
  it("is whole sock_filter records: an architecture check first, allow last", () => {
    const program = seccompProgram();
    expect(program.length % 8).toBe(0);
    const count = program.length / 8;
    // 6 for the architecture and x32 checks, 2 per denied call, 2 each for fork, vfork and
    // clone3, 6 for clone, 5 for socket, 1 allow.
    expect(count).toBe(6 + 2 * Object.keys(DENIED_SYSCALLS).length + 2 * 3 + 6 + 5 + 1);
    expect(program.readUInt32LE(12)).toBe(0xc000003e);
    expect(program.readUInt32LE(program.length - 4)).toBe(0x7fff0000);
  });
});
