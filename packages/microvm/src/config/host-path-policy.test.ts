import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { escapesBase, refusedHostPath } from "./host-path-policy.js";

const env = { ATRIUM_VM_CACHE: "/srv/cache/atrium", ATRIUM_VM_STATE: "/data/state/atrium" };

describe("refusedHostPath", () => {
  it("refuses the root, system trees, shared roots, its own cache and state, and credentials", () => {
    const cases: [string, string][] = [
      ["/", "/ is the host's root directory"],
      ["/etc", "/etc is a system directory"],
      ["/etc/ssl/private", "/etc/ssl/private is inside /etc, a system directory"],
      ["/usr/local/bin", "/usr/local/bin is inside /usr, a system directory"],
      ["/lib64", "/lib64 is a system directory"],
      ["/proc/1", "/proc/1 is inside /proc, a system directory"],
      ["/var/lib/docker", "/var/lib/docker is inside /var/lib, a system directory"],
      ["/var", "/var is a directory that holds other users' or programs' files"],
      ["/home", "/home is a directory that holds other users' or programs' files"],
      ["/tmp", "/tmp is a directory that holds other users' or programs' files"],
      [homedir(), `${homedir()} is a directory that holds other users' or programs' files`],
      [
        "/srv/cache/atrium/kernels",
        "/srv/cache/atrium/kernels holds atrium-vm's own cache or machines (/srv/cache/atrium)",
      ],
      ["/data/state", "/data/state holds atrium-vm's own cache or machines (/data/state/atrium)"],
      [join(homedir(), ".ssh"), `${join(homedir(), ".ssh")} holds credentials (${join(homedir(), ".ssh")})`],
    ];
    for (const [path, reason] of cases) expect(refusedHostPath(path, env), path).toBe(reason);
  });

  it("allows a directory of one's own", () => {
    for (const path of ["/tmp/work", "/home/ann/project", "/var/tmp/x", "/srv/data", "/work/repo/data"]) {
      expect(refusedHostPath(path, env), path).toBeUndefined();
    }
  });
});

describe("escapesBase", () => {
  it("is true only for a relative path that ends outside its base", () => {
    expect(escapesBase("../../../etc", "/p/q")).toBe(true);
    expect(escapesBase("..", "/p/q")).toBe(true);
    expect(escapesBase("a/../../b", "/p/q")).toBe(true);
    expect(escapesBase("a/../b", "/p/q")).toBe(false);
    expect(escapesBase("data", "/p/q")).toBe(false);
    expect(escapesBase("/etc", "/p/q")).toBe(false); // absolute: judged by refusedHostPath
  });
});
