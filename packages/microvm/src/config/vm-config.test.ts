import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadVmConfig, parseVmConfig } from "./vm-config.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "atrium-vm-config-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(text: string) {
  const path = join(dir, "atrium-vm.toml");
  await writeFile(path, text);
  return loadVmConfig(path);
}

describe("atrium-vm.toml", () => {
  it("reads every key, fills defaults, and resolves paths against the file's directory", async () => {
    const config = await load(`
image = "images/app"
cpus = 2
memory = "1G"
workdir = "/srv"
init = ["apk add x"]
env = { MODE = "test" }
volumes = [{ host = "data", guest = "/data", readonly = true }]
ports = [{ host = 8080, guest = 80 }]
network = { enabled = true, allow_hosts = ["127.0.0.1:9000"] }
`);
    expect(config).toEqual({
      image: join(dir, "images/app"),
      cpus: 2,
      memory: 1024,
      workdir: "/srv",
      init: ["apk add x"],
      env: { MODE: "test" },
      volumes: [{ host: join(dir, "data"), guest: "/data", readonly: true }],
      ports: [{ host: 8080, guest: 80 }],
      network: { enabled: true, allowHosts: ["127.0.0.1:9000"] },
    });
    expect(await load('image = "busybox"')).toEqual({
      image: "busybox",
      cpus: 1,
      memory: 256,
      env: {},
      init: [],
      volumes: [],
      ports: [],
      network: { enabled: false, allowHosts: [] },
    });
  });

  it("names every offending key", async () => {
    await expect(
      load(
        'image = "busybox"\ncpus = 0\nmemory = "lots"\nnetwork = { enabled = false, allow_hosts = ["bad host!"] }',
      ),
    ).rejects.toThrow(
      `${join(dir, "atrium-vm.toml")}: cpus: at least 1; memory: a number of MiB or a size such as "512M" or "2G"; network.allow_hosts.0: a host name or address, optionally with ":port"`,
    );
    expect(() => parseVmConfig({ image: "busybox", ports: [{ host: 1, guest: 2 }] })).toThrow(
      "machine config: ports: ports need the network on: set network.enabled = true",
    );
    expect(() => parseVmConfig({ image: "busybox", cpu: 2 })).toThrow(
      "machine config: (top level): unknown key cpu",
    );
    expect(() => parseVmConfig({ cpus: 1 })).toThrow("machine config: image:");
  });

  it("the TypeScript API is camelCase, reads the file's spelling too, and names keys as given", () => {
    const camel = parseVmConfig({ image: "busybox", network: { enabled: true, allowHosts: ["db:5432"] } });
    const snake = parseVmConfig({ image: "busybox", network: { enabled: true, allow_hosts: ["db:5432"] } });
    expect(camel.network).toEqual({ enabled: true, allowHosts: ["db:5432"] });
    expect(snake).toEqual(camel);
    expect(() =>
      parseVmConfig({ image: "busybox", network: { enabled: true, allowHosts: ["bad host!"] } }),
    ).toThrow('machine config: network.allowHosts.0: a host name or address, optionally with ":port"');
    expect(() =>
      parseVmConfig(
        { image: "busybox", volumes: [{ host: "/d", guest: "/d", unsafe_allow_host_path: 1 }] },
        "x",
        "file",
      ),
    ).toThrow("x: volumes.0.unsafe_allow_host_path: ");
  });

  it("says when the file is missing or not TOML", async () => {
    await expect(loadVmConfig(join(dir, "none.toml"))).rejects.toThrow(
      `cannot read ${join(dir, "none.toml")}`,
    );
    await expect(load("image = ")).rejects.toThrow(`${join(dir, "atrium-vm.toml")} is not valid TOML`);
  });

  it("refuses a volume path that climbs out of the file's directory, unless unsafe_allow_host_path", async () => {
    await expect(load('image = "busybox"\nvolumes = [{ host = "../x", guest = "/x" }]')).rejects.toThrow(
      `volumes.0.host: "../x" climbs out of the config file's directory (${dir}) to ${join(dir, "..", "x")}; share a directory of your own instead, or set unsafe_allow_host_path = true on this volume (unsafeAllowHostPath in the TypeScript API) to share it anyway`,
    );
    const allowed = await load(
      'image = "busybox"\nvolumes = [{ host = "../x", guest = "/x", unsafe_allow_host_path = true }]',
    );
    expect(allowed.volumes).toEqual([
      { host: join(dir, "..", "x"), guest: "/x", readonly: false, unsafeAllowHostPath: true },
    ]);
    // Inside the directory, ".." that stays inside is fine.
    expect((await load('image = "busybox"\nvolumes = [{ host = "a/../b", guest = "/b" }]')).volumes).toEqual([
      { host: join(dir, "b"), guest: "/b", readonly: false },
    ]);
  });
});
