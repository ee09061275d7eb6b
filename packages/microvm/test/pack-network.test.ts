import { mkdtemp, rm } from "node:fs/promises";
import { type AddressInfo, connect, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseVmConfig } from "../src/config/vm-config.js";
import type { Machine } from "../src/index.js";
import { bootNamedMachine } from "../src/named-machine/boot-named-machine.js";
import { bootPack, importPack, packMachine } from "../src/pack/pack-machine.js";
import { applyPackPolicy } from "../src/pack/pack-policy.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

// A pack carries its config to another host; that host decides what it gets (issue 24): no
// network and no bound ports unless asked, and an allow-list survives the round trip.

async function listen(greeting: string): Promise<{ server: Server; port: number; connections: number }> {
  const state = { server: undefined as unknown as Server, port: 0, connections: 0 };
  state.server = createServer((socket) => {
    state.connections += 1;
    socket.end(greeting);
  });
  await new Promise<void>((resolve) => state.server.listen(0, "127.0.0.1", resolve));
  state.port = (state.server.address() as AddressInfo).port;
  return state;
}

/** Whether something on the host's loopback accepts connections on `port`. */
function hostPortOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** What the guest reaches: the allowed server, and each route to the other one. */
async function reach(machine: Machine, allowed: number, other: number): Promise<string[]> {
  const lines: string[] = [];
  for (const target of [`10.0.2.100 ${allowed}`, `10.0.2.100 ${other}`, `10.0.2.2 ${other}`, "8.8.8.8 53"]) {
    const result = await machine.exec(`nc -w 3 ${target} </dev/null; echo rc=$?`);
    lines.push(`${target}: ${result.stdout.trim().replace(/\n/g, " ")}`);
  }
  return lines;
}

describe.skipIf(SKIP_VM_SUITES)("a packed machine's network", () => {
  let work: string;
  let pack: string;
  let allowed: Awaited<ReturnType<typeof listen>>;
  let other: Awaited<ReturnType<typeof listen>>;
  let hostPort: number;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "atrium-pack-net-"));
    allowed = await listen("allowed server\n");
    other = await listen("other server\n");
    // A free host port for the pack's declared forward (as the audit's hand-edited 18082).
    const probe = await listen("");
    hostPort = probe.port;
    probe.server.close();
    pack = join(work, "allow.atrium-vm");
    await packMachine({
      config: {
        image: "busybox",
        network: { enabled: true, allowHosts: [`127.0.0.1:${allowed.port}`] },
        ports: [{ host: hostPort, guest: 80 }],
      },
      out: pack,
    });
  }, 300_000);

  afterAll(async () => {
    allowed?.server.close();
    other?.server.close();
    await rm(work, { recursive: true, force: true });
  });

  const expected = () => [
    `10.0.2.100 ${allowed.port}: allowed server rc=0`,
    `10.0.2.100 ${other.port}: rc=1`,
    `10.0.2.2 ${other.port}: rc=1`,
    "8.8.8.8 53: rc=1",
  ];

  it("gets no network at all unless the runner asks", async () => {
    const machine = await bootPack(pack, { dir: join(work, "off") });
    try {
      expect((await machine.exec("ls /sys/class/net")).stdout).toBe("lo\n");
      expect(await hostPortOpen(hostPort)).toBe(false);
    } finally {
      await machine.stop();
    }
  }, 180_000);

  it("keeps its allow-list through pack run: the allowed host answers, nothing else, no port bound", async () => {
    const machine = await bootPack(pack, { dir: join(work, "run"), policy: { network: true } });
    try {
      expect(await reach(machine, allowed.port, other.port)).toEqual(expected());
      expect(await hostPortOpen(hostPort)).toBe(false);
    } finally {
      await machine.stop();
    }
    expect(other.connections).toBe(0);
  }, 180_000);

  it("keeps its allow-list through pack import and start", async () => {
    const stateDir = join(work, "state");
    const record = await importPack(pack, "imported", { stateDir, policy: { network: true } });
    expect(record.config.network).toEqual({ enabled: true, allowHosts: [`127.0.0.1:${allowed.port}`] });
    expect(record.config.ports).toEqual([]);
    const machine = await bootNamedMachine("imported", { stateDir });
    try {
      expect(await reach(machine, allowed.port, other.port)).toEqual(expected());
    } finally {
      await machine.stop();
    }
    expect(other.connections).toBe(0);
  }, 180_000);

  it("binds the pack's ports only when the runner asks", async () => {
    const machine = await bootPack(pack, {
      dir: join(work, "ports"),
      policy: { network: true, ports: true },
    });
    try {
      expect(await hostPortOpen(hostPort)).toBe(true);
    } finally {
      await machine.stop();
    }
  }, 180_000);

  it("lets the runner narrow the network, never widen it", async () => {
    await expect(
      bootPack(pack, { dir: join(work, "wider"), policy: { network: true, allowHosts: ["127.0.0.1:9"] } }),
    ).rejects.toThrow(
      `allow-hosts: 127.0.0.1:9 is not in the pack's allow-list (127.0.0.1:${allowed.port}); a runner can only narrow it`,
    );
    await expect(bootPack(pack, { dir: join(work, "asked"), policy: { ports: true } })).rejects.toThrow(
      "the pack's network stays off unless asked for: add --network (network: true) to allow hosts or bind ports",
    );
    const offline = parseVmConfig({ image: "busybox" });
    expect(() => applyPackPolicy(offline, { network: true })).toThrow(
      "the pack's network is off (network.enabled = false in its config); a runner can narrow a pack's network, never turn it on",
    );
    // A hand-edited pack that names host directories.
    const edited = parseVmConfig({ image: "busybox", volumes: [{ host: "/tmp/x", guest: "/x" }] });
    expect(() => applyPackPolicy(edited, {})).toThrow(
      "volumes: this pack's config names host directories, which a pack cannot carry (it was edited after `atrium-vm pack create`); remove them from the pack",
    );
    // A pack with the full user network, narrowed to one host by its runner.
    const full = parseVmConfig({ image: "busybox", network: { enabled: true } });
    expect(applyPackPolicy(full, { network: true, allowHosts: ["127.0.0.1:5"] }).network).toEqual({
      enabled: true,
      allowHosts: ["127.0.0.1:5"],
    });
  });
});
