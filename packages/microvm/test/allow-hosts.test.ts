import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Machine } from "../src/index.js";
import { SKIP_VM_SUITES } from "./vm-available.js";

async function listen(greeting: string): Promise<{ server: Server; port: number; connections: number[] }> {
  const connections: number[] = [];
  const server = createServer((socket) => {
    connections.push(Date.now());
    socket.end(greeting);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, connections };
}

describe.skipIf(SKIP_VM_SUITES)("network.allow_hosts", () => {
  let machine: Machine;
  let allowed: Awaited<ReturnType<typeof listen>>;
  let other: Awaited<ReturnType<typeof listen>>;

  beforeAll(async () => {
    allowed = await listen("allowed server\n");
    other = await listen("other server\n");
    machine = await Machine.create({
      image: "busybox",
      network: { enabled: true, allowHosts: [`127.0.0.1:${allowed.port}`] },
    });
  }, 180_000);

  afterAll(async () => {
    await machine?.stop();
    allowed?.server.close();
    other?.server.close();
  });

  it("reaches the allowed loopback server on the host, at 10.0.2.100 and by name", async () => {
    expect((await machine.exec(`nc -w 5 10.0.2.100 ${allowed.port} </dev/null`)).stdout).toBe(
      "allowed server\n",
    );
    expect((await machine.exec(`nc -w 5 host.atrium.internal ${allowed.port} </dev/null`)).stdout).toBe(
      "allowed server\n",
    );
    expect(allowed.connections.length).toBe(2);
  });

  it("reaches nothing else: not another port on the host, not the outside", async () => {
    for (const target of [
      `10.0.2.100 ${other.port}`,
      `10.0.2.2 ${other.port}`,
      `10.0.2.2 ${allowed.port}`,
      "8.8.8.8 53",
    ]) {
      const result = await machine.exec(`nc -w 3 ${target} </dev/null; echo rc=$?`);
      expect(result.stdout).toBe("rc=1\n");
    }
    expect(other.connections).toEqual([]);
  }, 60_000);

  it("keeps the allow-list in a restored clone: the allowed server and nothing else", async () => {
    const dir = await mkdtemp(join(tmpdir(), "atrium-vm-allow-snapshot-"));
    try {
      const path = join(dir, "allow.snapshot");
      await machine.snapshot(path);
      const restored = await Machine.restore(path);
      try {
        expect((await restored.exec(`nc -w 5 10.0.2.100 ${allowed.port} </dev/null`)).stdout).toBe(
          "allowed server\n",
        );
        const refused = await restored.exec(`nc -w 3 10.0.2.2 ${other.port} </dev/null; echo rc=$?`);
        expect(refused.stdout).toBe("rc=1\n");
        expect(other.connections).toEqual([]);
      } finally {
        await restored.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("refuses an entry without a port, naming it", async () => {
    await expect(
      Machine.create({ image: "busybox", network: { enabled: true, allowHosts: ["example.com"] } }),
    ).rejects.toThrow(
      'network.allowHosts.0: "example.com" needs a port (host:port); every allowed destination is one host and port',
    );
  });
});

// The audit's finding: the built package lost the relay (dist/ had no stdio-tcp-forward.cjs), so
// a guest's connection to an allowed host got the relay's stack trace. The relay now ships as
// source inside the bundle; these build the package as `pnpm build` does and use what it built.
describe.skipIf(SKIP_VM_SUITES)("network.allow_hosts from the built package (dist/)", () => {
  const packageDir = fileURLToPath(new URL("..", import.meta.url));
  let allowed: Awaited<ReturnType<typeof listen>>;
  let work: string;

  beforeAll(async () => {
    await promisify(execFile)("npx", ["tsup"], { cwd: packageDir });
    allowed = await listen("allowed server\n");
    work = await mkdtemp(join(tmpdir(), "atrium-vm-dist-"));
  }, 120_000);

  afterAll(async () => {
    allowed?.server.close();
    await rm(work, { recursive: true, force: true });
  });

  it("relays to an allowed host through dist/index.js", async () => {
    const dist = (await import(join(packageDir, "dist/index.js"))) as typeof import("../src/index.js");
    const machine = await dist.Machine.create({
      image: "busybox",
      network: { enabled: true, allowHosts: [`127.0.0.1:${allowed.port}`] },
    });
    try {
      expect(await machine.exec(`nc -w 5 10.0.2.100 ${allowed.port} </dev/null`)).toMatchObject({
        exitCode: 0,
        stdout: "allowed server\n",
        stderr: "",
      });
    } finally {
      await machine.stop();
    }
  }, 180_000);

  it("relays to an allowed host through the built CLI (dist/cli/main.js)", async () => {
    const config = join(work, "atrium-vm.toml");
    await writeFile(
      config,
      `image = "busybox"\nnetwork = { enabled = true, allow_hosts = ["127.0.0.1:${allowed.port}"] }\n`,
    );
    // @atrium/spec from its sources (its dist is not built here); this package from dist.
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [
        "--conditions=@atrium/source",
        "--import",
        import.meta.resolve("tsx"),
        join(packageDir, "dist/cli/main.js"),
        "run",
        "--config",
        config,
        "--",
        `nc -w 5 host.atrium.internal ${allowed.port} </dev/null`,
      ],
      { env: { ...process.env, ATRIUM_VM_QUIET: "1" } },
    );
    expect({ stdout, stderr }).toEqual({
      stdout: "allowed server\n",
      stderr: `atrium-vm: using config ${config}\n`,
    });
  }, 180_000);
});
